/**
 * The Orchestrate page when the model takes low DoM's direct-answer branch (MAS-Orchestra): the
 * real orchestrator worker (transformers.js on wasm) runs a model that chooses it, greedy, under
 * the real `tiny2` constraint, and the page shows "answered directly, no sub-agent" with the answer
 * as text (no empty graph), the tokens written, and a run that records the answer in a trace with
 * branch `direct` and no agent run; the trace page and its share link show the same.
 *
 * The shipped v2 never takes the branch on held-out tasks, so the model here is a TEST FIXTURE:
 * v2 fine-tuned a few steps on direct answers (tests/e2e/orchestrate-direct-fixture.ts), built in
 * a scratch folder and served in the hub's URL layout by a local HTTP server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../server/model-server.ts';
import { launch, openPage } from './browser.ts';
import { DIRECT_FIXTURE_ANSWER, writeDirectFixtureModel } from './orchestrate-direct-fixture.ts';

const REPO = 'test/direct-fixture';

let browser: Browser;
let server: ModelServer;
let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'baton-orch-direct-'));
  await writeDirectFixtureModel(join(scratch, 'direct'));
  server = await startModelServer({ [REPO]: join(scratch, 'direct') });
  browser = await launch();
}, 400_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the Orchestrate page on a direct answer', () => {
  it('shows the direct answer (no graph), runs nothing, and the trace and its share link record branch direct', async () => {
    const { page, errors, context } = await openPage(browser, '#/orchestrate');
    await page.getByTestId('orchestrate-page').waitFor();
    await page.getByTestId('orch-model').selectOption('__custom');
    await page.getByTestId('orch-custom-model').fill(`${server.url}${REPO}/resolve/main/`);
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
    await page.getByTestId('orch-bench-axis').selectOption('depth');
    await page.getByTestId('orch-bench-value').fill('3');
    await page.getByTestId('orch-dom').selectOption('low');
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

    // The direct-answer state in the graph's place: no empty graph, the answer as text.
    const dag = page.getByTestId('orch-dag');
    expect(await dag.getAttribute('data-branch')).toBe('direct');
    expect(await dag.getAttribute('data-agents')).toBe('0');
    expect(await page.getByTestId('orch-direct').textContent()).toContain('Answered directly, no sub-agent');
    expect((await page.getByTestId('orch-direct-answer').textContent())?.trim()).toBe(DIRECT_FIXTURE_ANSWER);
    expect(await page.getByText('Agents appear here as the model writes them.').count()).toBe(0);
    const check = page.getByTestId('orch-check');
    expect(await check.getAttribute('data-valid')).toBe('true');
    expect(await check.getAttribute('data-branch')).toBe('direct');
    const tokens = Number.parseInt((await page.getByTestId('orch-tokens').textContent()) ?? '', 10);
    expect(tokens).toBeGreaterThan(0);
    expect(await page.getByTestId('orch-check-direct').textContent()).toContain(`${tokens} tokens written`);
    await page.getByTestId('orch-run-direct').waitFor();

    // The run records the answer: no agent runs, no call is made.
    await page.getByTestId('orch-run-sim').click();
    await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
    await page.getByTestId('trace-page').waitFor();
    const shows = async (p: typeof page): Promise<void> => {
      expect(await p.getByTestId('trace-agent-count').getAttribute('data-count')).toBe('0');
      expect(await p.getByTestId('graph-empty').getAttribute('data-branch')).toBe('direct');
      expect(await p.getByTestId('graph-empty').textContent()).toContain('Answered directly, no sub-agent');
      expect((await p.getByTestId('graph-direct-answer').textContent())?.trim()).toBe(DIRECT_FIXTURE_ANSWER);
      expect(await p.getByTestId('designer').textContent()).toContain('direct: answered without a sub-agent');
      expect(await p.getByTestId('final-answer').textContent()).toContain(DIRECT_FIXTURE_ANSWER);
      const calls = p.getByTestId('totals').locator('div', { hasText: 'LLM calls' }).locator('strong');
      expect(await calls.textContent()).toBe('0');
    };
    await shows(page);

    // Its share link opens the same in a fresh tab.
    await page.click('[data-testid=share-button]');
    const link = await page.inputValue('[data-testid=share-link]');
    expect(link).toContain('#t=');
    const other = await context.newPage();
    await other.goto(link);
    await other.waitForURL(/#\/trace\//);
    await other.getByTestId('trace-page').waitFor();
    await shows(other);
    expect(errors).toEqual([]);
    await context.close();
  });
});
