/**
 * Driving the Train page's "Orchestrator LM" mode through its controls, shared by the e2e test
 * (tests/e2e/train-orchestrator.e2e.ts) and the benchmark that trains through the page
 * (bench/orchestrator-train.bench.ts). Free of vitest, so plain tsx scripts can use it.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';

/** Switches the Train page (already open) to the orchestrator mode and waits for its setup. */
export async function openOrchMode(page: Page): Promise<void> {
  await page.getByTestId('train-mode-orchestrator').check();
  await page.getByTestId('orch-setup').waitFor();
}

/** Picks the SFT model (a folder id) and waits until the form holds it with its settings. */
export async function pickOrchModel(page: Page, id: string): Promise<void> {
  await page.getByTestId('orch-field-model').selectOption(id);
  await page.waitForFunction(
    (want) => document.querySelector('[data-testid="orch-values"]')?.getAttribute('data-model') === want,
    id,
  );
}

/** Types a number into one of the mode's numeric settings (`orch-field-<key>`). */
export async function setOrchField(page: Page, key: string, value: number): Promise<void> {
  await page.getByTestId(`orch-field-${key}`).fill(String(value));
}

/** The run's status (`data-status` of the status line) and the iteration it shows. */
export async function orchStatus(page: Page): Promise<{ status: string; iteration: number }> {
  return page.evaluate(() => ({
    status: document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status') ?? '',
    iteration: Number(document.querySelector('[data-testid="orch-iteration"]')?.textContent ?? 'NaN'),
  }));
}

/** The problems the mode shows (its alert), as text; empty when none. */
export async function orchProblems(page: Page): Promise<string> {
  const alert = page.getByTestId('orch-problems');
  return (await alert.count()) > 0 ? ((await alert.textContent()) ?? '') : '';
}

/** Waits until the run is paused at iteration `n` or later, or failed. */
export async function waitOrchPaused(page: Page, n: number, timeout: number): Promise<void> {
  await page.waitForFunction(
    (want) => {
      const st = document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status');
      const it = Number(document.querySelector('[data-testid="orch-iteration"]')?.textContent);
      return (st === 'paused' && it >= want) || st === 'error';
    },
    n,
    { timeout },
  );
}

/** Clicks "Download metrics (JSON)" and answers the file's text. */
export async function downloadOrchRun(page: Page): Promise<string> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('orch-download-metrics').click(),
  ]);
  const path = await download.path();
  return readFile(path, 'utf8');
}
