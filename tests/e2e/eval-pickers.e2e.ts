import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';
import { pickEval } from './eval-pick.ts';

/**
 * The Evaluate page's pickers (issue 19, item 14): the checkpoint just trained on the Train page is
 * offered next to the archive agents and built-in policies and runs; the manifest's orchestrator
 * models are listed but not selectable, with the reason; the Pareto plot takes the full width and
 * keeps its labels inside.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

describe('Evaluate pickers', () => {
  it('offers the checkpoint just trained and runs it; hub orchestrators are greyed out; the scatter is full width', async () => {
    const { page, errors, context } = await openPage(browser, '#/train');
    try {
      // Train one small step and keep the policy (as "Use in Build" does).
      await page.locator('[data-testid=train-page]').waitFor();
      await page.click('[data-testid=train-preset-robustness]');
      await page.click('.train-config summary');
      for (const [field, value] of [
        ['tasksPerIteration', '2'],
        ['groupSize', '2'],
        ['epochs', '1'],
        ['minibatch', '32'],
      ] as const)
        await page.fill(`[data-testid=train-field-${field}]`, value);
      await page.selectOption('[data-testid=train-compute]', 'cpu');
      await page.click('[data-testid=train-start]');
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
        undefined,
        { timeout: 60_000 },
      );
      await page.click('[data-testid=train-use-in-build]');
      await page.waitForURL(/#\/build$/);
      const name = (await page.locator('[data-testid=policy-select]').inputValue()).replace(
        /^checkpoint:/,
        '',
      );
      expect(name).toMatch(/^trained:grpo:robustness:\d+$/);

      await page.goto(page.url().replace(/#.*$/, '#/eval'));
      await page.getByTestId('eval-page').waitFor();
      const trained = page.locator(`[data-testid=eval-method][data-method="policy:${name}:greedy"]`);
      await trained.waitFor();
      // The manifest's orchestrator models: the one this build ships is selectable (it runs in the
      // evaluation worker), hub models are listed, not selectable, with the reason; the provider as
      // the orchestrator is listed too, selectable on the provider backend only.
      const tiny = page.locator(
        '[data-testid=eval-method][data-method="orchestrator:baton-orchestrator-tiny"]',
      );
      await tiny.waitFor();
      expect(await tiny.isDisabled()).toBe(false);
      const hub = page.locator('[data-testid=eval-method][data-method="orchestrator:qwen2.5-0.5b-instruct"]');
      expect(await hub.isDisabled()).toBe(true);
      const words = await page.getByTestId('eval-methods').innerText();
      expect(words).toMatch(/downloads from the Hugging Face hub/);
      const provider = page.locator('[data-testid=eval-method][data-method="orchestrator:provider"]');
      expect(await provider.isDisabled()).toBe(true);
      expect(words).toMatch(/needs the provider backend/);

      await pickEval(
        page,
        `cot,sc,reflexion,policy:prior:greedy,policy:${name}:greedy`,
        'depth:2,robustness:4',
      );
      expect(await page.getByTestId('eval-methods-words').innerText()).toContain(`policy:${name}:greedy`);
      expect(await page.getByTestId('eval-axes-words').innerText()).toBe('--axes depth:2,robustness:4');
      await page.getByTestId('eval-n').fill('2');
      await page.getByTestId('eval-fresh').click();
      await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 90_000 });
      expect(await page.getByTestId(`eval-row-policy:${name}:greedy-all-all`).count()).toBe(1);

      // The scatter spans the results' width, and every label stays inside the plot.
      const scatter = page.getByTestId('eval-scatter');
      const results = page.getByTestId('eval-results');
      const sw = (await scatter.locator('svg').boundingBox())?.width ?? 0;
      const rw = (await results.boundingBox())?.width ?? 1;
      expect(sw / rw).toBeGreaterThan(0.9);
      const inside = await scatter.locator('svg').evaluate((svg) => {
        const box = (svg as SVGSVGElement).viewBox.baseVal;
        return [...svg.querySelectorAll('.point-label')].map((t) => {
          const b = (t as SVGTextElement).getBBox();
          return b.x >= 0 && b.y >= 0 && b.x + b.width <= box.width && b.y + b.height <= box.height;
        });
      });
      expect(inside.length).toBe(5);
      expect(inside.every(Boolean)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
