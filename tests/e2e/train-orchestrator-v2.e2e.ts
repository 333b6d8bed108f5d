import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  downloadOrchRun,
  openOrchMode,
  pickOrchModel,
  setOrchField,
  waitOrchPaused,
} from '../support/orch-train-page.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Train page's "Orchestrator LM" mode starting from the v2 SFT model (the real training worker,
 * simulated sub-agents): picking v2 sets its settings, one iteration runs from it, and "Download
 * metrics" gives that iteration's metrics and the run's settings.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('the Orchestrator LM mode from the v2 model', () => {
  it('trains an iteration from v2 with its settings and downloads the run', async () => {
    const { page, errors } = await openPage(browser, '#/train');
    await openOrchMode(page);
    await pickOrchModel(page, 'baton-orchestrator-tiny-v2');
    expect(await page.getByTestId('orch-values').textContent()).toMatch(/2–12/);
    expect(Number(await page.getByTestId('orch-field-maxNewTokens').inputValue())).toBeGreaterThanOrEqual(
      400,
    );
    await setOrchField(page, 'tasksPerIteration', 1);
    await setOrchField(page, 'groupSize', 2);
    await setOrchField(page, 'iterations', 1);
    await page.getByTestId('orch-start').click();
    await waitOrchPaused(page, 1, 80_000);
    expect(await page.getByTestId('orch-status').getAttribute('data-status')).toBe('paused');
    expect(await page.getByTestId('orch-sft-model').textContent()).toMatch(
      /baton-orchestrator-tiny-v2 · [\d,]+ parameters, 832 positions/,
    );
    const run = JSON.parse(await downloadOrchRun(page)) as {
      model: { id: string };
      settings: { values: number[]; maxNewTokens: number };
      history: { iteration: number; samples: number }[];
    };
    expect(run.model.id).toBe('baton-orchestrator-tiny-v2');
    expect(run.settings.values).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(run.history.map((m) => [m.iteration, m.samples])).toEqual([[1, 2]]);
    expect(errors).toEqual([]);
  }, 120_000);
});
