import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launch, openPage } from './browser.ts';

/** Drag-and-drop import, links over the budget (the smaller, trimmed link), and the JSON download. */

interface TraceJson {
  id: string;
  title: string;
  design: { agents: unknown[] };
  execution: { events: { type: string; output?: string; messages?: { role: string; content: string }[] }[] };
}

const SECRET = 'sk-proj-' + 'A1b2C3d4E5f6G7h8I9j0'.repeat(2);

/**
 * An example trace made too big for a link: every LLM output is replaced by 60,000 characters of
 * pseudo-random text (which compresses poorly), and one message holds an API key.
 */
function bigTrace(): TraceJson {
  const trace = JSON.parse(readFileSync('dist/examples/parallel-branches.json', 'utf8')) as TraceJson;
  let seed = 7;
  const noise = (n: number): string => {
    let s = '';
    for (let i = 0; i < n; i++) {
      // xorshift32: cheap, deterministic, and without the short low-bit cycles of a small LCG.
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      s += String.fromCharCode(97 + ((seed >>> 0) % 26));
    }
    return s;
  };
  trace.id = 'big-trace-for-links';
  trace.title = 'Big trace for links';
  let keyed = false;
  for (const e of trace.execution.events) {
    if (e.type !== 'llm.call') continue;
    e.output = noise(60_000);
    if (!keyed && e.messages?.[0]) {
      e.messages[0].content += ` (called with Authorization: Bearer ${SECRET})`;
      keyed = true;
    }
  }
  expect(keyed).toBe(true);
  return trace;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function withPage(path: string, body: (page: Page) => Promise<void>): Promise<void> {
  const { context, page, errors } = await openPage(browser, path);
  try {
    await body(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

/** Drops files on the page the way the browser does: dragenter, dragover, drop with a DataTransfer. */
async function dropFiles(page: Page, files: { name: string; text: string }[]): Promise<void> {
  await page.evaluate(async (list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { type: 'application/json' }));
    window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
    window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    await new Promise((r) => setTimeout(r, 50));
    if (!document.querySelector('[data-testid=drop-overlay]'))
      throw new Error('no drop overlay while dragging');
    window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, files);
}

describe('drag and drop', () => {
  it('imports dropped files, shows the overlay while dragging, and reports a bad file', async () => {
    const trace = bigTrace();
    await withPage('', async (page) => {
      await page.locator('[data-testid=gallery-search]').waitFor();
      await dropFiles(page, [
        { name: 'big.json', text: JSON.stringify(trace) },
        { name: 'notes.txt', text: 'not a trace' },
      ]);
      await page.locator('[data-testid=import-count][data-count="1"]').waitFor();
      expect(await page.locator('[data-testid=drop-overlay]').count()).toBe(0);
      const report = page.locator('[data-testid=import-report]');
      expect(await report.locator('[role=alert]').innerText()).toContain('notes.txt');
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
      expect(await page.locator('[data-testid=trace-title]').innerText()).toBe(trace.title);
    });
  });
});

describe('sharing a trace too big for a link', () => {
  it('says it is over the budget, offers a trimmed link that opens marked as trimmed, and downloads redacted JSON', async () => {
    const trace = bigTrace();
    let small = '';
    await withPage('', async (page) => {
      await page.locator('[data-testid=gallery-search]').waitFor();
      await dropFiles(page, [{ name: 'big.json', text: JSON.stringify(trace) }]);
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);

      const download = page.waitForEvent('download');
      await page.click('[data-testid=download-json]');
      const file = await download;
      expect(file.suggestedFilename()).toBe('big-trace-for-links.baton.json');
      const path = await file.path();
      const text = readFileSync(path, 'utf8');
      expect(text).not.toContain(SECRET);
      expect((JSON.parse(text) as TraceJson).id).toBe(trace.id);

      await page.click('[data-testid=share-button]');
      await page.locator('[data-testid=share-over-budget]').waitFor();
      const full = Number(await page.locator('[data-testid=share-size]').getAttribute('data-chars'));
      expect(full).toBeGreaterThan(32_000);
      expect(await page.inputValue('[data-testid=share-link]')).not.toContain(SECRET);

      await page.click('[data-testid=share-smaller]');
      await page.locator('[data-testid=share-trimmed]').waitFor();
      small = await page.inputValue('[data-testid=share-link]');
      expect(small.length).toBeLessThan(full);
      expect(await page.locator('[data-testid=share-over-budget]').count()).toBe(0);
    });
    await withPage(small.slice(baseUrl().length), async (page) => {
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
      await page.locator('[data-testid=trace-trimmed]').waitFor();
      expect(await page.locator('[data-testid=trace-agent-count]').getAttribute('data-count')).toBe(
        String(trace.design.agents.length),
      );
    });
  });
});
