import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launch, openPage } from './browser.ts';

/**
 * The Train page's share link and ablation study in Chromium: train a tiny run on the CPU, share
 * it, open the link in a new page (read-only), re-run it on the CPU and see every number
 * reproduced, hand its parameters to Build; a bad link shows its error as text; a two-variant,
 * two-seed, one-iteration ablation study ends in its table and overlaid curves.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

async function waitFor<A>(page: Page, fn: (arg: A) => boolean, arg?: A, timeout = 60_000): Promise<void> {
  await page.waitForFunction(fn as (arg: unknown) => boolean, arg, { timeout });
}

async function tinySettings(page: Page, preset = 'robustness'): Promise<void> {
  await page.locator('[data-testid=train-page]').waitFor();
  await page.click(`[data-testid=train-preset-${preset}]`);
  await page.click('.train-config summary');
  for (const [field, value] of [
    ['tasksPerIteration', '2'],
    ['groupSize', '2'],
    ['epochs', '1'],
    ['minibatch', '32'],
  ] as const)
    await page.fill(`[data-testid=train-field-${field}]`, value);
  await page.selectOption('[data-testid=train-compute]', 'cpu');
}

describe('Train page: share a run, ablation study', () => {
  it('shares a run that opens read-only, re-runs exactly on the CPU, and opens in Build when it carries the parameters', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    try {
      // Depth preset, at least two iterations (the pause lands between iterations, so a few more
      // may finish first). The trained parameters fit the link budget after one or two iterations
      // only (≈ 3,200 and 25,000 characters; from the third on ≈ 60,000, see docs/train-page.md).
      await tinySettings(page, 'depth');
      await page.click('[data-testid=train-start]');
      await waitFor(
        page,
        () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 2,
      );
      await page.click('[data-testid=train-pause]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      );
      const iterations = Number(await page.locator('[data-testid=train-iteration]').innerText());
      expect(iterations).toBeGreaterThanOrEqual(2);
      const withParams = iterations <= 2;

      await page.click('[data-testid=train-share]');
      const field = page.locator('[data-testid=train-share-link]');
      await field.waitFor();
      const url = await field.inputValue();
      expect(url).toContain('#r=1.');
      expect(await page.locator('[data-testid=train-share-size]').getAttribute('data-params')).toBe(
        withParams ? 'included' : 'too-large',
      );
      if (!withParams)
        expect(await page.locator('[data-testid=train-share-size]').innerText()).toContain(
          'did not fit within 32,000 characters',
        );
      expect(errors).toEqual([]);

      // Another browser profile: nothing of the run but the link.
      const other = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        const view = await other.newPage();
        const viewErrors: string[] = [];
        view.on('pageerror', (e) => viewErrors.push(String(e)));
        await view.goto(url);
        await view.locator('[data-testid=shared-run-readonly]').waitFor();
        expect(await view.locator('[data-testid=shared-run-readonly]').innerText()).toBe('read-only');
        expect(await view.locator('[data-testid=shared-run-summary]').innerText()).toContain(
          `${iterations} iterations`,
        );
        await waitFor(
          view,
          (n: number) =>
            Number(
              document.querySelector('[data-testid=train-chart-reward]')?.getAttribute('data-points'),
            ) === n,
          iterations,
        );
        expect(await view.locator('[data-testid=shared-run-config]').innerText()).toContain('depth');

        await view.click('[data-testid=shared-run-rerun]');
        const verdict = view.locator('[data-testid=shared-run-verdict]');
        await verdict.waitFor({ timeout: 60_000 });
        expect(await verdict.innerText()).toBe(
          `reproduced exactly: ${iterations} iterations, every number equal`,
        );
        expect(await verdict.getAttribute('data-exact')).toBe('true');

        expect(await view.locator('[data-testid=shared-run-use-in-build]').count()).toBe(withParams ? 1 : 0);
        if (withParams) {
          await view.click('[data-testid=shared-run-use-in-build]');
          await view.waitForURL(/#\/build$/);
          await waitFor(
            view,
            (want: string) =>
              (document.querySelector('[data-testid=policy-select]') as HTMLSelectElement | null)?.value ===
              want,
            `checkpoint:shared:grpo:depth:${iterations}`,
          );
        }

        // A damaged link: its error as text, no run.
        await view.goto(`${baseUrl()}#r=1.not-a-run`);
        await view.locator('[data-testid=shared-run-problems]').waitFor();
        expect(await view.locator('[data-testid=shared-run-problems]').innerText()).toMatch(/link/i);
        expect(await view.locator('[data-testid=shared-run-summary]').count()).toBe(0);
        expect(viewErrors).toEqual([]);
      } finally {
        await other.close();
      }
    } finally {
      await context.close();
    }
  });

  it('runs a small ablation study and shows its table and overlaid curves', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    try {
      await tinySettings(page);
      await page.fill('[data-testid=ablation-seeds]', '2');
      await page.fill('[data-testid=ablation-iterations]', '1');
      await page.fill('[data-testid=ablation-eval-n]', '4');
      for (const id of [
        'reinforce',
        'hrpo-no-exemption',
        'hrpo-no-action-rewards',
        'hrpo-no-jpss',
        'hrpo-no-intermediate',
        'hrpo-std',
        'grpo-std',
      ])
        await page.uncheck(`[data-testid=ablation-variant-${id}]`);
      await page.click('[data-testid=ablation-start]');
      await page.locator('[data-testid=ablation-table]').waitFor({ timeout: 60_000 });
      const rows = page.locator('[data-testid=ablation-row]');
      expect(await rows.count()).toBe(2);
      expect(await rows.nth(0).innerText()).toContain('HRPO');
      expect(await rows.nth(1).innerText()).toContain('GRPO');
      // mean [lo, hi] per cell
      expect(await rows.nth(0).innerText()).toMatch(/\d\.\d{3} \[-?\d\.\d{3}, -?\d\.\d{3}\]/);
      expect(await page.locator('[data-testid=ablation-chart]').getAttribute('data-series')).toBe('2');
      expect(await page.locator('[data-testid=ablation-chart] canvas').count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
