import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launch, openPage } from './browser.ts';

/** The app shell, gallery, imports, recents and share links, against the built app in dist/. */

interface Manifest {
  examples: { file: string; title: string; tags: string[] }[];
}
interface TraceFile {
  id: string;
  title: string;
  design: { agents: unknown[] };
}

const manifest = JSON.parse(readFileSync('dist/examples/index.json', 'utf8')) as Manifest;
const exampleTrace = (file: string): TraceFile =>
  JSON.parse(readFileSync(join('dist/examples', file), 'utf8')) as TraceFile;
const CASES = '../shared/data/mas-orchestra-cases';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** Opens a page, runs the test body, and fails on any uncaught page error. */
async function withPage(path: string, body: (page: Page) => Promise<void>): Promise<void> {
  const { context, page, errors } = await openPage(browser, path);
  try {
    await body(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

const cardCount = (page: Page): Promise<number> => page.locator('[data-testid=gallery-card]').count();

/** Waits for exactly `n` cards; an examples error ends the wait early so the failure says why. */
async function waitForCards(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (expected) =>
      document.querySelectorAll('[data-testid=gallery-card]').length === expected ||
      document.querySelector('.gallery [role=alert]') !== null,
    n,
  );
  const problem = page.locator('.gallery [role=alert]');
  if ((await problem.count()) > 0) throw new Error(`gallery error: ${await problem.first().innerText()}`);
  expect(await cardCount(page)).toBe(n);
}

async function openFirstExample(page: Page): Promise<TraceFile> {
  const first = manifest.examples[0];
  if (!first) throw new Error('the build has no bundled examples');
  await waitForCards(page, manifest.examples.length);
  await page
    .locator(`[data-testid=gallery-card][data-file="${first.file}"] [data-testid=gallery-card-open]`)
    .click();
  const trace = exampleTrace(first.file);
  await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
  await page.locator('[data-testid=trace-title]').waitFor();
  return trace;
}

describe('gallery', () => {
  it('lists every bundled example with its agent count and tags', async () => {
    expect(manifest.examples.length).toBeGreaterThan(0);
    await withPage('', async (page) => {
      await waitForCards(page, manifest.examples.length);
      const first = manifest.examples[0]!;
      const card = page.locator(`[data-testid=gallery-card][data-file="${first.file}"]`);
      expect(await card.locator('.card-title').innerText()).toBe(first.title);
      const agents = exampleTrace(first.file).design.agents.length;
      expect(await card.locator('[data-testid=gallery-card-agents]').innerText()).toBe(
        `${agents} agent${agents === 1 ? '' : 's'}`,
      );
      for (const tag of first.tags) expect(await card.innerText()).toContain(tag);
      expect(await page.locator('text=No recent traces yet').count()).toBe(1);
    });
  });

  it('filters examples as the user types, and says when nothing matches', async () => {
    await withPage('', async (page) => {
      await waitForCards(page, manifest.examples.length);
      const tag = 'debate';
      const expected = manifest.examples.filter(
        (e) => e.tags.includes(tag) || e.title.toLowerCase().includes(tag),
      ).length;
      expect(expected).toBeGreaterThan(0);
      await page.fill('[data-testid=gallery-search]', tag);
      await page.waitForFunction(
        (total) => document.querySelectorAll('[data-testid=gallery-card]').length < total,
        manifest.examples.length,
      );
      expect(await cardCount(page)).toBeGreaterThanOrEqual(expected);
      await page.fill('[data-testid=gallery-search]', 'zzzz-no-such-trace');
      await waitForCards(page, 0);
      await page.locator('text=Nothing matches').waitFor();
      await page.fill('[data-testid=gallery-search]', '');
      await waitForCards(page, manifest.examples.length);
    });
  });

  it('opens an example at its own route with its title and agent count', async () => {
    await withPage('', async (page) => {
      const trace = await openFirstExample(page);
      expect(await page.locator('[data-testid=trace-title]').innerText()).toBe(trace.title);
      expect(await page.locator('[data-testid=trace-agent-count]').getAttribute('data-count')).toBe(
        String(trace.design.agents.length),
      );
    });
  });

  it('opens every page from the navigation, each with its own heading', async () => {
    await withPage('', async (page) => {
      await waitForCards(page, manifest.examples.length);
      for (const [tab, root, heading] of [
        ['train', 'train-page', 'Train'],
        ['eval', 'eval-page', 'Evaluate'],
      ] as const) {
        await page.click(`[data-testid=nav-${tab}]`);
        await page.locator(`[data-testid=${root}]`).waitFor();
        expect(await page.locator(`[data-testid=${root}] h1`).first().innerText()).toBe(heading);
        expect(await page.locator(`[data-testid=nav-${tab}]`).getAttribute('aria-current')).toBe('page');
      }
      await page.click('[data-testid=nav-gallery]');
      await waitForCards(page, manifest.examples.length);
    });
  });

  it('explains an unknown trace id instead of showing a blank page', async () => {
    await withPage('#/trace/no-such-trace', async (page) => {
      const alert = page.locator('[data-testid=trace-error][role=alert]');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('no-such-trace');
    });
  });
});

describe('recents', () => {
  it('survive a reload, and removing one sticks', async () => {
    await withPage('', async (page) => {
      const trace = await openFirstExample(page);
      await page.click('[data-testid=nav-gallery]');
      const item = page.locator(`[data-testid=recent-item][data-id="${trace.id}"]`);
      await item.waitFor();
      await page.reload();
      await item.waitFor();
      expect(await item.innerText()).toContain(trace.title);
      await item.locator('[data-testid=recent-remove]').click();
      await page.locator('text=No recent traces yet').waitFor();
      await page.reload();
      await page.locator('text=No recent traces yet').waitFor();
      expect(await item.count()).toBe(0);
    });
  });
});

describe.skipIf(!existsSync(CASES))('importing MAS-Orchestra case slides', () => {
  it('imports every slide of a sample through the file picker and opens the first', async () => {
    const name = readdirSync(CASES).find((f) => f.includes('depth6')) ?? readdirSync(CASES)[0]!;
    const slides = (JSON.parse(readFileSync(join(CASES, name), 'utf8')) as unknown[]).length;
    expect(slides).toBeGreaterThan(1);
    await withPage('', async (page) => {
      await page.setInputFiles('[data-testid=file-input]', join(CASES, name));
      const count = page.locator('[data-testid=import-count]');
      await count.waitFor();
      const imported = Number(await count.getAttribute('data-count'));
      expect(imported).toBeGreaterThan(1);
      expect(imported).toBeLessThanOrEqual(slides);
      expect(await page.locator('[data-testid=import-report]').innerText()).toContain(name);
      await page.waitForURL((url) => url.hash.startsWith('#/trace/'));
      await page.locator('[data-testid=trace-title]').waitFor();
      await page.click('[data-testid=nav-gallery]');
      await page.waitForFunction(
        (n) => document.querySelectorAll('[data-testid=recent-item]').length === n,
        imported,
      );
    });
  });
});

describe('share links', () => {
  it('open the same trace in a fresh browser context', async () => {
    let link = '';
    let expected: TraceFile | null = null;
    await withPage('', async (page) => {
      expected = await openFirstExample(page);
      await page.click('[data-testid=share-button]');
      await page.locator('[data-testid=share-link]').waitFor();
      link = await page.inputValue('[data-testid=share-link]');
      const size = Number(await page.locator('[data-testid=share-size]').getAttribute('data-chars'));
      expect(size).toBe(link.length);
      expect(link.startsWith(baseUrl())).toBe(true);
      expect(link).toMatch(/#t=1\./);

      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl() });
      await page.click('[data-testid=share-copy]');
      await page.locator('text=Copied to the clipboard.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    });
    const trace = expected as TraceFile | null;
    if (!trace) throw new Error('no trace was opened');
    await withPage(link.slice(baseUrl().length), async (page) => {
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
      await page.locator('[data-testid=trace-title]').waitFor();
      expect(await page.locator('[data-testid=trace-title]').innerText()).toBe(trace.title);
      expect(await page.locator('[data-testid=trace-agent-count]').getAttribute('data-count')).toBe(
        String(trace.design.agents.length),
      );
    });
  });

  for (const bad of ['#t=1.garbage', '#t=99.x']) {
    it(`explain a malformed link (${bad}) and keep the gallery usable`, async () => {
      await withPage(bad, async (page) => {
        const alert = page.locator('[data-testid=open-error][role=alert]');
        await alert.waitFor();
        expect(await alert.innerText()).toMatch(/share link/i);
        await waitForCards(page, manifest.examples.length);
        await page.fill('[data-testid=gallery-search]', 'zzzz-no-such-trace');
        await waitForCards(page, 0);
      });
    });
  }
});

describe('?src=', () => {
  it('fetches a bundled example by URL and opens it', async () => {
    const first = manifest.examples[0]!;
    const trace = exampleTrace(first.file);
    await withPage(`?src=${encodeURIComponent(`examples/${first.file}`)}`, async (page) => {
      await page.waitForURL((url) => url.hash === `#/trace/${trace.id}`);
      await page.locator('[data-testid=trace-title]').waitFor();
      expect(await page.locator('[data-testid=trace-title]').innerText()).toBe(trace.title);
    });
  });

  it('explains an HTTP failure', async () => {
    await withPage('?src=examples/missing-file.json', async (page) => {
      const alert = page.locator('[data-testid=open-error][role=alert]');
      await alert.waitFor();
      expect(await alert.innerText()).toContain('HTTP 404');
    });
  });

  it('explains a server it cannot reach (network or CORS)', async () => {
    // Port 9 (discard) on loopback refuses connections: the browser reports it like a CORS refusal.
    await withPage(`?src=${encodeURIComponent('http://127.0.0.1:9/trace.json')}`, async (page) => {
      const alert = page.locator('[data-testid=open-error][role=alert]');
      await alert.waitFor();
      expect(await alert.innerText()).toMatch(/CORS/);
      await page.locator('[data-testid=gallery-search]').waitFor();
    });
  });
});
