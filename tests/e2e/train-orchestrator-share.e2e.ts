import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * The Orchestrator LM mode's share link in Chromium: one iteration of the smallest run the mode
 * allows (B = 1, G = 2) and a one-task held-out evaluation, then "Share link"; the link opens in
 * another browser profile read-only with the same curves, evaluation and config as the run, and says
 * why the weights are not in it. A tampered link shows its problem as text.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const text = async (page: Page, id: string): Promise<string> =>
  (await page.getByTestId(id).textContent()) ?? '';

async function waitStatus(page: Page, want: string): Promise<void> {
  await page.waitForFunction(
    (w) => {
      const st = document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status');
      return st === w || st === 'error';
    },
    want,
    { timeout: 60_000 },
  );
  expect(await page.getByTestId('orch-status').getAttribute('data-status')).toBe(want);
}

describe('sharing an orchestrator run', () => {
  it('opens read-only elsewhere with the run’s curves, evaluation and config', async () => {
    const { page, errors } = await openPage(browser, '#/train');
    await page.getByTestId('train-mode-orchestrator').check();
    await page.getByTestId('orch-setup').waitFor();
    for (const [k, v] of [
      ['tasksPerIteration', 1],
      ['groupSize', 2],
      ['iterations', 1],
      ['evalTasks', 1],
      ['seed', 5],
    ] as const)
      await page.getByTestId(`orch-field-${k}`).fill(String(v));
    await page.getByTestId('orch-start').click();
    await waitStatus(page, 'paused');
    expect(await text(page, 'orch-iteration')).toBe('1');
    await page.getByTestId('orch-evaluate').click();
    await page.getByTestId('orch-eval-table').waitFor({ timeout: 60_000 });
    await waitStatus(page, 'paused');

    await page.getByTestId('orch-share').click();
    const field = page.getByTestId('orch-share-link');
    await field.waitFor();
    const url = await field.inputValue();
    expect(url).toContain('#r=1.');
    expect(await text(page, 'orch-share-weights')).toMatch(
      /^Weights not in the link: as 8-bit values the [\d,]+ parameters take [\d,]+ characters .* over the link budget of 32,000 characters\. Export the model folder instead/,
    );
    const curves = await text(page, 'orch-curve-table');
    const evaluation = await text(page, 'orch-eval-table');
    const params = /([\d,]+) parameters/.exec(await text(page, 'orch-sft-model'))?.[1];
    const backend = await text(page, 'orch-backend');
    expect(curves).toMatch(/^iteration/);
    expect(errors).toEqual([]);

    const other = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    try {
      const view = await other.newPage();
      const viewErrors: string[] = [];
      view.on('pageerror', (e) => viewErrors.push(String(e)));
      await view.goto(url);
      await view.getByTestId('orch-shared-page').waitFor();
      expect(await text(view, 'shared-run-readonly')).toBe('read-only');
      expect(await text(view, 'orch-curve-table')).toBe(curves);
      expect(await text(view, 'orch-eval-table')).toBe(evaluation);
      expect(await text(view, 'orch-shared-params')).toBe(params);
      expect(await text(view, 'orch-shared-backend')).toBe(backend);
      expect(await view.getByTestId('orch-sample').count()).toBe(2);
      await view.waitForFunction(
        () =>
          document.querySelector('[data-testid="train-chart-orch-reward"]')?.getAttribute('data-points') ===
          '1',
      );
      const config = await view.getByTestId('orch-shared-config').locator('tr').allTextContents();
      for (const row of ['tasksPerIteration1', 'groupSize2', 'seed5', 'evalTasks1', 'clipEps0.2'])
        expect(config).toContain(row);
      expect(await text(view, 'orch-shared-weights')).toMatch(/over the link budget of 32,000 characters/);

      // One changed character in the payload: a clear error, as text.
      const at = url.length - 30;
      await view.goto(url.slice(0, at) + (url[at] === 'A' ? 'B' : 'A') + url.slice(at + 1));
      await view.getByTestId('shared-run-problems').waitFor();
      expect(await text(view, 'shared-run-problems')).toMatch(/link/i);
      expect(viewErrors).toEqual([]);
    } finally {
      await other.close();
    }
  }, 150_000);
});
