/**
 * The Orchestrate page with the shipped v2 model (models/baton-orchestrator-tiny-v2, format
 * `tiny2`), picked from the manifest: it loads from the build's own `models/` on wasm and writes a
 * valid design for a long generated task (a value-12 parallel task, far past v1's 64-token window)
 * in both DoM modes.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('the Orchestrate page with the v2 model', () => {
  it('loads baton-orchestrator-tiny-v2 from the manifest and writes valid designs, low and high DoM', async () => {
    const { page, errors, context } = await openPage(browser, '#/orchestrate');
    await page.getByTestId('orchestrate-page').waitFor();
    await page
      .locator('[data-testid="orch-model"] option[value="baton-orchestrator-tiny-v2"]')
      .waitFor({ state: 'attached' });
    await page.getByTestId('orch-model').selectOption('baton-orchestrator-tiny-v2');
    await page.getByTestId('orch-device').selectOption('wasm');
    await page.getByTestId('orch-load').click();
    await page.waitForFunction(
      () => {
        const s = document.querySelector('[data-testid="orch-load-state"]')?.getAttribute('data-status');
        return s === 'ready' || s === 'error';
      },
      undefined,
      { timeout: 60_000 },
    );
    expect(await page.getByTestId('orch-load-state').getAttribute('data-status')).toBe('ready');
    await page.getByTestId('orch-task-masbench').check();
    await page.getByTestId('orch-bench-axis').selectOption('parallel');
    await page.getByTestId('orch-bench-value').fill('12');
    for (const dom of ['low', 'high']) {
      await page.getByTestId('orch-dom').selectOption(dom);
      await page.getByTestId('orch-start').click();
      await page.waitForFunction(
        () => {
          const s = document.querySelector('[data-testid="orch-gen-status"]')?.getAttribute('data-status');
          return s !== undefined && s !== null && s !== 'running';
        },
        undefined,
        { timeout: 120_000 },
      );
      expect(await page.getByTestId('orch-gen-status').getAttribute('data-status')).toBe('done');
      expect(await page.getByTestId('orch-check').getAttribute('data-valid')).toBe('true');
      expect(Number(await page.getByTestId('orch-dag').getAttribute('data-agents'))).toBeGreaterThan(0);
      expect((await page.getByTestId('orch-thinking').textContent())?.length).toBeGreaterThan(0);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});
