import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOrchMode, setOrchField as field, waitOrchPaused } from '../support/orch-train-page.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Train page's "Orchestrator LM" mode in Chromium, with the real training worker (GRPO of the
 * shipped offline model on the backend the probe picks, simulated sub-agents) and the real
 * orchestrator worker: the mode trains a few iterations, a reload resumes the saved run, and "Use in
 * Orchestrate" loads the trained weights on the Orchestrate page, where they write a design for a
 * fixed query that differs from the one the shipped weights write. The learning rate is set high
 * (0.05, KL off) so that three iterations move the weights enough to change a greedy design.
 */
const QUERY = 'Compare the GDP growth of France and Germany in 2023, then say which grew faster.';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/** Writes a greedy design for QUERY with the model the page has loaded; answers the text written. */
async function writeDesign(page: Page): Promise<string> {
  await page.getByTestId('orch-task-custom').check();
  await page.getByTestId('orch-query').fill(QUERY);
  await page.getByTestId('orch-dom').selectOption('high');
  await page.getByTestId('orch-start').click();
  await page.waitForFunction(
    () => document.querySelector('[data-testid="orch-gen-status"]')?.getAttribute('data-status') === 'done',
    undefined,
    { timeout: 30_000 },
  );
  return `${await page.getByTestId('orch-thinking').textContent()}\n${await page.getByTestId('orch-design-text').textContent()}`;
}

async function waitLoaded(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid="orch-load-state"]')?.getAttribute('data-status');
      return s === 'ready' || s === 'error';
    },
    undefined,
    { timeout: 30_000 },
  );
  const state = page.getByTestId('orch-load-state');
  expect(`${await state.getAttribute('data-status')} ${await state.textContent()}`).toMatch(/^ready/);
}

async function waitIteration(page: Page, n: number): Promise<void> {
  await waitOrchPaused(page, n, 40_000);
  expect(await page.getByTestId('orch-status').getAttribute('data-status')).toBe('paused');
  expect(await page.getByTestId('orch-iteration').textContent()).toBe(String(n));
}

describe('the Train page in Orchestrator LM mode', () => {
  it('trains, resumes after a reload, and its weights write a different design on the Orchestrate page', async () => {
    const { page, errors } = await openPage(browser, '#/orchestrate');

    // The shipped weights' design for the fixed query (fp32, as the trained folder is loaded).
    await page.getByTestId('orchestrate-page').waitFor();
    await page
      .locator('[data-testid="orch-model"] option[value="baton-orchestrator-tiny"]')
      .waitFor({ state: 'attached' });
    await page.getByTestId('orch-device').selectOption('wasm');
    await page.getByTestId('orch-dtype').selectOption('fp32');
    await page.getByTestId('orch-load').click();
    await waitLoaded(page);
    const before = await writeDesign(page);
    expect(before.length).toBeGreaterThan(10);

    // Train two iterations.
    await page.goto(`${new URL(page.url()).origin}${new URL(page.url()).pathname}#/train`);
    await openOrchMode(page);
    await field(page, 'tasksPerIteration', 1);
    await field(page, 'groupSize', 2);
    await field(page, 'lr', 0.05);
    await field(page, 'klCoef', 0);
    await field(page, 'iterations', 2);
    await page.getByTestId('orch-start').click();
    await waitIteration(page, 2);
    expect(await page.getByTestId('orch-backend').textContent()).toMatch(/^(cpu|wasm|webgpu): \S/);
    expect(await page.getByTestId('orch-sft-model').textContent()).toMatch(
      /baton-orchestrator-tiny.*parameters/,
    );
    expect(await page.getByTestId('orch-status').textContent()).toMatch(/checkpoint saved at iteration 2/);
    expect(await page.getByTestId('orch-sample').count()).toBe(2);
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="train-chart-orch-reward"]')?.getAttribute('data-points') ===
        '2',
    );

    // A reload: the saved run is offered, and Resume continues it from iteration 2.
    await page.reload();
    await page.getByTestId('train-mode-orchestrator').check();
    await page.getByTestId('orch-resumable').waitFor();
    expect(await page.getByTestId('orch-resumable').textContent()).toMatch(/iteration 2/);
    expect(await page.getByTestId('orch-iteration').textContent()).toBe('2');
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="train-chart-orch-kl"]')?.getAttribute('data-points') === '2',
    );
    await field(page, 'iterations', 3);
    await page.getByTestId('orch-resume').click();
    await waitIteration(page, 3);
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="train-chart-orch-reward"]')?.getAttribute('data-points') ===
        '3',
    );

    // Use in Orchestrate: the trained folder loads there and writes another design.
    await page.getByTestId('orch-use').click();
    await page.getByTestId('orchestrate-page').waitFor();
    expect(await page.getByTestId('orch-custom-model').inputValue()).toMatch(
      /\/trained-models\/baton-orchestrator-tiny-grpo-3-/,
    );
    await waitLoaded(page);
    const after = await writeDesign(page);
    expect(after.length).toBeGreaterThan(10);
    expect(after).not.toBe(before);
    expect(errors).toEqual([]);
  }, 90_000);
});
