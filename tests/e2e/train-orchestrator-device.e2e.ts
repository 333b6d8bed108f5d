import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * Device loss in the Train page's "Orchestrator LM" mode, in Chromium with the real training worker
 * on the real WebGPU device (SwiftShader here, forced): the test hook destroys the device
 * (`device.destroy()`) after an iteration; the iteration in flight is dropped, the trainer is built
 * again from the last finished iteration's checkpoint on the best CPU-side backend (WebAssembly SIMD,
 * which Chromium has), the page says why, and training goes on: at most one iteration is lost and
 * every iteration is on the charts once.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const iteration = (page: Page): Promise<number> =>
  page.evaluate(() => Number(document.querySelector('[data-testid="orch-iteration"]')?.textContent));

async function field(page: Page, key: string, value: number): Promise<void> {
  await page.getByTestId(`orch-field-${key}`).fill(String(value));
}

describe('the Orchestrator LM mode on a lost WebGPU device', () => {
  it('resumes from the last checkpoint on the wasm backend, says why, and loses at most one iteration', async () => {
    const { page, errors, context } = await openPage(browser, '?train-test-hooks#/train');
    try {
      await page.getByTestId('train-page').waitFor();
      await page.getByTestId('train-mode-orchestrator').check();
      await page.getByTestId('orch-setup').waitFor();
      await field(page, 'tasksPerIteration', 1);
      await field(page, 'groupSize', 2);
      await field(page, 'iterations', 6);
      await page.getByTestId('orch-compute').selectOption('webgpu');
      await page.getByTestId('orch-start').click();
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid="orch-iteration"]')?.textContent) >= 1,
        undefined,
        { timeout: 60_000 },
      );
      expect(await page.getByTestId('orch-backend').textContent()).toMatch(/^webgpu: WebGPU forced on/);

      await page.getByTestId('orch-lose-device').click();
      await page.waitForFunction(() => document.body.dataset.orchDeviceLossArmed === 'true');
      const notice = page.getByTestId('orch-notice');
      // The hook waits for the iteration in flight, then destroys the device after the next one;
      // an iteration takes tens of seconds on SwiftShader.
      await notice.waitFor({ timeout: 240_000 });
      const text = await notice.innerText();
      expect(text).toMatch(/WebGPU device was lost during iteration \d+/);
      expect(text).toMatch(/resumed on the WebAssembly SIMD backend from iteration \d+/);
      expect(await page.getByTestId('orch-backend').textContent()).toMatch(
        /^wasm: the WebGPU device was lost \(.+\): continuing on the WebAssembly SIMD backend/,
      );
      // It resumed from the last finished iteration: the one lost is at most the one in flight.
      const lostAt = Number(/from iteration (\d+)/.exec(text)?.[1]);
      expect(lostAt).toBeGreaterThanOrEqual(1);
      await page.waitForFunction(
        (n) => Number(document.querySelector('[data-testid="orch-iteration"]')?.textContent) >= n + 2,
        lostAt,
        { timeout: 120_000 },
      );
      await page.getByTestId('orch-pause').click();
      await page.waitForFunction(
        () => document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status') === 'paused',
        undefined,
        { timeout: 60_000 },
      );
      // Every iteration is on the charts once: none skipped, none counted twice.
      const n = await iteration(page);
      expect(n).toBeGreaterThanOrEqual(lostAt + 2);
      for (const chart of ['orch-reward', 'orch-kl'])
        expect(await page.getByTestId(`train-chart-${chart}`).getAttribute('data-points')).toBe(String(n));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 480_000);
});
