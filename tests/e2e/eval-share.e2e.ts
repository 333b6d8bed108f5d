import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launch, openPage } from './browser.ts';
import { pickEval } from './eval-pick.ts';

/**
 * Sharing evaluation results in Chromium: a tiny evaluation on the simulated sub-agents, "Share",
 * the link opened in another browser profile shows the same table, pairs and scatter read-only;
 * a damaged link shows its error as text; "Download OTLP" gives one OTLP/JSON file with every
 * trace of the evaluation.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

interface OtlpFile {
  resourceSpans: { scopeSpans: { spans: { traceId: string; name: string }[] }[] }[];
}

describe('Evaluate page: share the results, download OTLP', () => {
  it('shares results that open read-only with the same numbers, and exports every trace as OTLP', async () => {
    const { context, page, errors } = await openPage(browser, '#/eval');
    try {
      await page.getByTestId('eval-page').waitFor();
      await pickEval(page, 'cot,sc', 'depth:2,robustness:4');
      await page.getByTestId('eval-n').fill('3');
      await page.getByTestId('eval-seed').fill('5');
      await page.getByTestId('eval-fresh').click();
      await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 60_000 });
      expect(await page.getByTestId('eval-status').textContent()).toContain('12 / 12 tasks');
      const table = await page.getByTestId('eval-table').innerText();
      const pairs = await page.getByTestId('eval-pairs').innerText();
      const accuracy = await page.getByTestId('eval-row-sc-all-all').getByTestId('eval-accuracy').innerText();
      expect(accuracy).toMatch(/^\d\.\d{3} \[/);

      await page.getByTestId('eval-share').click();
      const url = await page.getByTestId('eval-share-link').inputValue();
      expect(url.startsWith(`${baseUrl()}#e=1.`)).toBe(true);
      expect(await page.getByTestId('eval-share-size').getAttribute('data-rows')).toBe('included');
      expect(await page.getByTestId('eval-share-size').innerText()).toContain('all 12 per-task rows');

      // Another browser profile: nothing of the evaluation but the link.
      const other = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        const view = await other.newPage();
        const viewErrors: string[] = [];
        view.on('pageerror', (e) => viewErrors.push(String(e)));
        await view.goto(url);
        await view.getByTestId('eval-shared-readonly').waitFor();
        expect(await view.getByTestId('eval-shared-readonly').innerText()).toBe('read-only');
        expect(await view.getByTestId('eval-table').innerText()).toBe(table);
        expect(await view.getByTestId('eval-pairs').innerText()).toBe(pairs);
        expect(await view.getByTestId('eval-row-sc-all-all').getByTestId('eval-accuracy').innerText()).toBe(
          accuracy,
        );
        expect(await view.getByTestId('eval-scatter').locator('circle').count()).toBe(2);
        expect(await view.getByTestId('eval-shared-rows').getAttribute('data-rows')).toBe('included');
        expect(await view.getByTestId('eval-shared-config').innerText()).toContain('Simulated sub-agents');
        // A picked cell counts its rows from the link.
        await view.getByTestId('eval-row-cot-depth-2').click();
        expect(await view.getByTestId('eval-shared-pick').innerText()).toMatch(/\d of 3 tasks correct/);

        // A damaged link: the error as text, no crash.
        await view.goto(`${baseUrl()}#e=1.not-a-link`);
        const problems = view.getByTestId('eval-shared-problems');
        await problems.waitFor();
        expect(await problems.innerText()).toContain('The share link is not valid');
        expect(viewErrors).toEqual([]);
      } finally {
        await other.close();
      }

      // Every trace of the evaluation in one OTLP/JSON file.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByTestId('eval-export-otlp').click(),
      ]);
      expect(download.suggestedFilename()).toBe('evaluation.otlp.json');
      const otlp = JSON.parse(readFileSync(await download.path(), 'utf8')) as OtlpFile;
      expect(otlp.resourceSpans).toHaveLength(1);
      expect(otlp.resourceSpans[0]?.scopeSpans).toHaveLength(1);
      const spans = otlp.resourceSpans[0]!.scopeSpans[0]!.spans;
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(12);
      expect(await page.getByTestId('eval-otlp-done').innerText()).toBe('12 traces exported.');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
