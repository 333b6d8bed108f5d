import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/** The gallery with real imported data: search by file, tellable titles, dates, links, the empty search. */

const CASES = '../shared/data/mas-orchestra-cases';
const CASE_PAGE = resolve('tests/fixtures/importers/case-page.html');

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function withGallery(body: (page: Page) => Promise<void>): Promise<void> {
  const { context, page, errors } = await openPage(browser, '');
  try {
    await page.locator('[data-testid=gallery-card]').first().waitFor();
    await body(page);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

/** Imports a file through the picker and comes back to the gallery; returns how many traces came in. */
async function importFile(page: Page, file: string): Promise<number> {
  await page.setInputFiles('[data-testid=file-input]', file);
  const count = page.locator('[data-testid=import-count]');
  await count.waitFor();
  const n = Number(await count.getAttribute('data-count'));
  await page.locator('[data-testid=trace-title]').waitFor();
  await page.click('[data-testid=nav-gallery]');
  await page.waitForFunction((k) => document.querySelectorAll('[data-testid=recent-item]').length >= k, n);
  return n;
}

const titles = (page: Page): Promise<string[]> =>
  // textContent: the question and its row/step are two boxes of one line (innerText would split them).
  page
    .locator('[data-testid=recent-item] .recents-title a')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));

describe('recent traces imported from a case page', () => {
  it('are listed under plain titles with their row and step, and "date unknown" instead of 1970', async () => {
    await withGallery(async (page) => {
      const n = await importFile(page, CASE_PAGE);
      expect(n).toBe(3);
      const shown = await titles(page);
      expect(shown).toHaveLength(3);
      for (const t of shown) {
        expect(t).toMatch(/ · row \d+ · step 250$/);
        expect(t).not.toMatch(/[$\\]/);
      }
      expect(new Set(shown).size).toBe(3);
      const dates = await page.locator('[data-testid=recent-date]').allInnerTexts();
      expect(dates).toEqual(['date unknown', 'date unknown', 'date unknown']);
      for (const added of await page.locator('[data-testid=recent-added]').allInnerTexts())
        expect(added).toMatch(/^imported /);
      expect(await page.locator('[data-testid=recents]').innerText()).not.toContain('1970');

      // The file name finds them; a word in no field finds nothing, and the way back is a small button.
      await page.fill('[data-testid=gallery-search]', 'case-page');
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=recent-item]').length === 3);
      await page.fill('[data-testid=gallery-search]', 'zzzz-nothing');
      const clear = page.getByRole('button', { name: 'Clear the search' });
      await clear.waitFor();
      const b = await clear.boundingBox();
      const empty = await page.locator('.empty', { has: clear }).boundingBox();
      expect(b!.width).toBeLessThan(200);
      expect(b!.width).toBeLessThan(empty!.width / 2);
      await clear.click();
      // The list follows the search box through a deferred render: wait for it.
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=recent-item]').length === 3);
      expect(await page.locator('[data-testid=gallery-search]').inputValue()).toBe('');
    });
  });
});

describe.skipIf(!existsSync(CASES))('the AIME24 case slides', () => {
  it('are found by searching for the file or dataset name, and told apart by row', async () => {
    const name = readdirSync(CASES).find((f) => f.includes('aime'));
    if (!name) return;
    await withGallery(async (page) => {
      const n = await importFile(page, join(CASES, name));
      expect(n).toBeGreaterThan(1);
      await page.fill('[data-testid=gallery-search]', 'aime');
      await page.waitForFunction(
        (k) => document.querySelectorAll('[data-testid=recent-item]').length === k,
        n,
      );
      const shown = await titles(page);
      expect(new Set(shown).size).toBe(n);
      for (const t of shown) {
        expect(t).not.toMatch(/[$\\]/);
        // Cut at a word: the part before the row ends with a whole word and "…", or is the whole question.
        expect(t).toMatch(/(\w…|[\w.?!)]) · aime24 · row \d+ · step \d+$/);
      }
    });
  });
});

describe('example cards', () => {
  it('are links: a modified click opens the trace in a new tab', async () => {
    await withGallery(async (page) => {
      const link = page.locator('[data-testid=gallery-card-open]').first();
      const href = await link.getAttribute('href');
      expect(href).toMatch(/^#\/trace\/example-/);
      const [tab] = await Promise.all([
        page.context().waitForEvent('page'),
        link.click({ modifiers: ['Control'] }),
      ]);
      await tab.waitForLoadState();
      expect(new URL(tab.url()).hash).toBe(href);
      await tab.locator('[data-testid=trace-title]').waitFor();
      // The gallery itself stayed where it was.
      expect(new URL(page.url()).hash).not.toBe(href);
      // A plain click opens it here.
      await link.click();
      await page.waitForURL((url) => url.hash === href);
      await page.locator('[data-testid=trace-title]').waitFor();
    });
  });
});
