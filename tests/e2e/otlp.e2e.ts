import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOtlpText, StrictExportTraceServiceRequestSchema } from '../../src/interop/index.ts';
import { foreignCrewExport } from '../support/otlp-samples.ts';
import { launch, openPage } from './browser.ts';

/** OpenTelemetry in the app: dropping an OTLP/JSON file imports it; the trace page downloads OTLP. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function withPage(body: (page: Page) => Promise<void>): Promise<void> {
  const { context, page, errors } = await openPage(browser, '');
  try {
    await page.locator('[data-testid=gallery-search]').waitFor();
    await body(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

async function dropFile(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(
    async ({ name, text }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], name, { type: 'application/json' }));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
      window.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      await new Promise((r) => setTimeout(r, 50));
      window.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { name, text },
  );
}

describe('OpenTelemetry files in the app', () => {
  it('imports a dropped OTLP/JSON export and reports what it kept as notes', async () => {
    await withPage(async (page) => {
      await dropFile(page, 'crew.otlp.json', JSON.stringify(foreignCrewExport()));
      await page.locator('[data-testid=import-count][data-count="1"]').waitFor();
      expect(await page.locator('[data-testid=import-report]').innerText()).toContain('otlp-json');
      expect(await page.locator('[data-testid=import-notes]').innerText()).toMatch(/kept as notes/);
      await page.locator('[data-testid=trace-page]').waitFor();
      expect(await page.locator('[data-testid=trace-agent-count]').getAttribute('data-count')).toBe('2');
      expect(await page.locator('[data-testid=trace-title]').innerText()).toMatch(/^crew/);
      // The inspector opens on the final agent, `researcher`: the tool span it called and the
      // attribute no rule maps are shown as notes with their kind.
      const notes = page.locator('[data-testid=agent-note]');
      await notes.first().waitFor();
      const shown = (await notes.allInnerTexts()).join('\n');
      expect(shown).toContain('otel.span');
      expect(shown).toContain('web_search.tool');
      expect(shown).toContain('llm.is_streaming');
    });
  });

  it('downloads the open trace as OTLP/JSON that validates and imports back', async () => {
    const text = readFileSync('dist/examples/debate.json', 'utf8');
    const trace = JSON.parse(text) as { id: string; design: { agents: { id: string }[] } };
    await withPage(async (page) => {
      await dropFile(page, 'debate.json', text);
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
      const download = page.waitForEvent('download');
      await page.click('[data-testid=download-otlp]');
      const file = await download;
      expect(file.suggestedFilename()).toMatch(/\.otlp\.json$/);
      const otlp = readFileSync(await file.path(), 'utf8');
      expect(StrictExportTraceServiceRequestSchema.safeParse(JSON.parse(otlp)).success).toBe(true);
      const back = importOtlpText(otlp);
      expect(back.ok).toBe(true);
      if (!back.ok) return;
      const r = back.items[0]!.result;
      expect(r.ok && r.value.id).toBe(trace.id);
      expect(r.ok && r.value.design.agents.map((a) => a.id)).toEqual(trace.design.agents.map((a) => a.id));
    });
  });
});
