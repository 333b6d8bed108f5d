import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';
import { pickEval } from './eval-pick.ts';

/**
 * The Evaluate page runs an in-tab orchestrator model: `cot` beside the tiny orchestrator this build
 * ships (models/baton-orchestrator-tiny, loaded in the evaluation worker with the Orchestrate page's
 * loading path: transformers.js, the app's own model and onnxruntime-web files, nothing fetched from
 * elsewhere) on the simulator. Both methods get rows in the table and points in the plot; each
 * orchestrator row counts the tiny model's own tokens (prompt and generated) in its tokens and calls.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

const TINY = 'orchestrator:baton-orchestrator-tiny';

interface Row {
  method: string;
  tokens: number;
  llmCalls: number;
  status: string;
  orchestrator?: { tokens: number; costUsd: number; calls: number };
}

describe('Evaluate page with an in-tab orchestrator', () => {
  it('runs cot and orchestrator:tiny on the simulator, both in the table, the model counted in its cost', async () => {
    const { page, errors, context } = await openPage(browser, '#/eval');
    // Offline: only this app's own origin answers.
    const origin = new URL(page.url()).origin;
    const foreign: string[] = [];
    await context.route(
      (url) => url.origin !== origin,
      (route) => {
        foreign.push(route.request().url());
        return route.abort();
      },
    );
    await page.getByTestId('eval-page').waitFor();
    const tiny = page.locator(`[data-testid=eval-method][data-method="${TINY}"]`);
    await tiny.waitFor();
    expect(await tiny.isDisabled()).toBe(false);
    await pickEval(page, `cot,${TINY}`, 'depth:2');
    expect(await page.getByTestId('eval-methods-words').innerText()).toContain(TINY);
    await page.getByTestId('eval-n').fill('2');
    await page.getByTestId('eval-fresh').click();
    await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('eval-status').textContent()).toContain('4 / 4 tasks');

    for (const m of ['cot', TINY]) {
      const row = page.getByTestId(`eval-row-${m}-all-all`);
      expect(await row.locator('td').nth(2).textContent(), m).toBe('2');
    }
    expect(await page.getByTestId('eval-scatter').locator('circle').count()).toBe(2);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('eval-export-json').click(),
    ]);
    const doc = JSON.parse(readFileSync(await download.path(), 'utf8')) as {
      rows: Row[];
      summary: { methods: { method: string; available: boolean }[] };
    };
    expect(doc.summary.methods.find((m) => m.method === TINY)?.available).toBe(true);
    const rows = doc.rows.filter((r) => r.method === TINY);
    expect(rows).toHaveLength(2);
    for (const r of rows) {
      // The model wrote each design here (constrained decoding: a valid one, which then ran), and
      // its tokens are in the row's.
      expect(r.status).toBe('completed');
      expect(r.orchestrator?.calls).toBe(1);
      expect(r.orchestrator?.costUsd).toBe(0);
      expect(r.orchestrator?.tokens ?? 0).toBeGreaterThan(0);
      expect(r.tokens).toBeGreaterThanOrEqual(r.orchestrator?.tokens ?? Infinity);
      expect(r.llmCalls).toBeGreaterThanOrEqual(1);
    }
    expect(doc.rows.filter((r) => r.method === 'cot')).toHaveLength(2);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
