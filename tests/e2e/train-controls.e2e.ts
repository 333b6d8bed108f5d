import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * The Train page's rough edges (issue 19, item 13): controls that do not apply look disabled,
 * settings the chosen algorithm ignores are greyed out with the reason, a held-out greedy point
 * every N iterations (N in the form) lands on the accuracy chart, the smoothing slider draws an EMA
 * over the raw values, and the mini-graphs' role names fit their nodes.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const opacity = (page: Page, testId: string): Promise<number> =>
  page.locator(`[data-testid=${testId}]`).evaluate((el) => Number(getComputedStyle(el).opacity));

const wait = (page: Page, fn: () => boolean): Promise<unknown> =>
  page.waitForFunction(fn, undefined, { timeout: 60_000 });

describe('Train page controls and charts', () => {
  it('enables only what applies, greys out ignored settings, plots held-out points and smooths', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    try {
      await page.locator('[data-testid=train-page]').waitFor();
      // Idle: only Start applies, and the rest look it.
      expect(await page.locator('[data-testid=train-start]').isEnabled()).toBe(true);
      for (const id of ['train-pause', 'train-resume', 'train-step', 'train-stop', 'train-reset']) {
        expect(await page.locator(`[data-testid=${id}]`).isDisabled()).toBe(true);
        expect(await opacity(page, id)).toBeLessThan(0.6);
      }
      expect(await opacity(page, 'train-start')).toBe(1);

      // GRPO (the default) ignores HRPO's action-wise settings: disabled, with the reason.
      await page.click('.train-config summary');
      expect(await page.locator('[data-testid=train-field-algo]').inputValue()).toBe('grpo');
      const note = page.locator('[data-testid=train-group-action-wise] [data-testid=train-inactive-note]');
      expect(await note.innerText()).toMatch(/only HRPO uses action-wise rewards; GRPO ignores/);
      for (const f of [
        'actionReward-gain',
        'actionReward-exemption',
        'actionRewards',
        'exemption',
        'intermediate',
      ])
        expect(await page.locator(`[data-testid=train-field-${f}]`).isDisabled()).toBe(true);
      expect(await page.locator('[data-testid=train-field-jpss]').isEnabled()).toBe(true);
      await page.selectOption('[data-testid=train-field-algo]', 'hrpo');
      expect(await note.count()).toBe(0);
      expect(await page.locator('[data-testid=train-field-actionReward-gain]').isEnabled()).toBe(true);
      expect(await page.locator('[data-testid=train-field-baselineDecay]').isDisabled()).toBe(true);
      await page.selectOption('[data-testid=train-field-algo]', 'grpo');

      // A small run with a held-out point every 2 iterations.
      await page.click('[data-testid=train-preset-robustness]');
      for (const [field, value] of [
        ['tasksPerIteration', '2'],
        ['groupSize', '2'],
        ['epochs', '1'],
        ['minibatch', '32'],
        ['evalEvery', '2'],
      ] as const)
        await page.fill(`[data-testid=train-field-${field}]`, value);
      await page.selectOption('[data-testid=train-compute]', 'cpu');
      await page.click('[data-testid=train-start]');
      await wait(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'running',
      );
      // Running: Pause and Stop apply, Start, Resume and Step do not.
      for (const id of ['train-pause', 'train-stop'])
        expect(await page.locator(`[data-testid=${id}]`).isEnabled()).toBe(true);
      for (const id of ['train-start', 'train-resume', 'train-step'])
        expect(await page.locator(`[data-testid=${id}]`).isDisabled()).toBe(true);

      await page.locator('[data-testid=train-chart-accuracy]').scrollIntoViewIfNeeded();
      await wait(
        page,
        () =>
          Number(
            document.querySelector('[data-testid=train-chart-accuracy]')?.getAttribute('data-heldout'),
          ) >= 2,
      );
      await page.locator('[data-testid=train-chart-reward]').scrollIntoViewIfNeeded();
      await wait(
        page,
        () =>
          Number(document.querySelector('[data-testid=train-chart-reward]')?.getAttribute('data-points')) >=
          4,
      );
      await page.click('[data-testid=train-pause]');
      await wait(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      );

      // Smoothing: 0 draws the raw values; 0.95 draws a debiased EMA that differs from the last raw value.
      const reward = page.locator('[data-testid=train-chart-reward]');
      await page.locator('[data-testid=train-smoothing]').fill('0');
      await wait(page, () => {
        const el = document.querySelector('[data-testid=train-chart-reward]') as HTMLElement | null;
        return el?.dataset.smoothedLast === el?.dataset.last;
      });
      await page.locator('[data-testid=train-smoothing]').fill('0.95');
      expect(await page.locator('[data-testid=train-smoothing-value]').innerText()).toBe('0.95');
      await wait(page, () => {
        const el = document.querySelector('[data-testid=train-chart-reward]') as HTMLElement | null;
        return el?.dataset.smoothedLast !== el?.dataset.last;
      });
      const raw = Number(await reward.getAttribute('data-last'));
      const smoothed = Number(await reward.getAttribute('data-smoothed-last'));
      expect(Number.isFinite(smoothed)).toBe(true);
      expect(smoothed).not.toBe(raw);
      expect(await reward.locator('.u-legend').innerText()).toContain('mean R (raw)');

      // Every role name drawn in a mini-graph fits inside its node (230 wide).
      const widths = await page
        .locator('[data-testid=train-dag-label]')
        .evaluateAll((els) => els.map((el) => (el as SVGTextElement).getBBox().width));
      expect(widths.length).toBeGreaterThan(0);
      for (const w of widths) expect(w).toBeLessThanOrEqual(230);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
