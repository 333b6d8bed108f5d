import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../src/cli/commands/eval.ts';
import { launch, openPage } from './browser.ts';
import { pickEval } from './eval-pick.ts';

/**
 * The Evaluate page against `baton eval`: the same settings and seed give the same numbers in the
 * browser (worker, IndexedDB journal) as on the command line; a reload resumes from the journal;
 * a table row lists its traces and one opens in the trace viewer.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

const METHODS = 'cot,sc,reflexion';
const AXES = 'depth:2,6,robustness:4';

async function cliSummary(): Promise<Map<string, { accuracy: string; tokens: number }>> {
  const dir = await mkdtemp(join(tmpdir(), 'baton-eval-e2e-'));
  const code = await evalCommand.run(
    [
      '--methods',
      METHODS,
      '--axes',
      AXES,
      '--n',
      '4',
      '--seed',
      '3',
      '--backend',
      'simulated',
      '--out',
      'r.json',
      '--fresh',
    ],
    { out: () => undefined, err: () => undefined, cwd: dir },
  );
  expect(code).toBe(0);
  const doc = JSON.parse(await readFile(join(dir, 'r.json'), 'utf8')) as {
    summary: {
      methods: {
        method: string;
        overall: { accuracy: number; ci95: [number, number]; meanTokens: number };
      }[];
    };
  };
  return new Map(
    doc.summary.methods.map((m) => [
      m.method,
      {
        accuracy: `${m.overall.accuracy.toFixed(3)} [${m.overall.ci95[0].toFixed(2)}, ${m.overall.ci95[1].toFixed(2)}]`,
        tokens: Math.round(m.overall.meanTokens),
      },
    ]),
  );
}

describe('Evaluate page', () => {
  it('shows the same numbers as baton eval for the same settings, resumes after a reload and opens a trace', async () => {
    const cli = await cliSummary();
    const { page, errors, context } = await openPage(browser, '#/eval');
    await page.getByTestId('eval-page').waitFor();
    await pickEval(page, METHODS, AXES);
    await page.getByTestId('eval-n').fill('4');
    await page.getByTestId('eval-seed').fill('3');
    await page.getByTestId('eval-fresh').click();
    await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('eval-status').textContent()).toContain('36 / 36 tasks');
    for (const [method, s] of cli) {
      const row = page.getByTestId(`eval-row-${method}-all-all`);
      expect(await row.getByTestId('eval-accuracy').textContent()).toBe(s.accuracy);
      expect(await row.locator('td').nth(4).textContent()).toBe(String(s.tokens));
    }
    expect(await page.getByTestId('eval-scatter').locator('circle').count()).toBe(3);

    // Reload: the draft is gone, the journal is not; the same settings resume with nothing to run.
    await page.reload();
    await pickEval(page, METHODS, AXES);
    await page.getByTestId('eval-n').fill('4');
    await page.getByTestId('eval-seed').fill('3');
    await page.getByTestId('eval-run').click();
    await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 60_000 });
    for (const [method, s] of cli)
      expect(
        await page.getByTestId(`eval-row-${method}-all-all`).getByTestId('eval-accuracy').textContent(),
      ).toBe(s.accuracy);

    // A row lists its traces; one opens in the trace viewer.
    await page.getByTestId('eval-row-sc-depth-6').click();
    const links = page.getByTestId('eval-trace-link');
    expect(await links.count()).toBe(4);
    await links.first().click();
    await page.waitForURL(/#\/trace\//);
    await page.getByText('SC (5) · masbench-depth-6', { exact: false }).first().waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
