import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../server/model-server.ts';
import { writeFixtureModel } from './orchestrate-fixture.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Orchestrate page in Chromium with the real orchestrator worker (transformers.js on wasm):
 * load the model (per-file progress bars), orchestrate a query and watch the graph grow, interrupt
 * one run and complete another, run the design on the simulator, open its trace and its share link;
 * and bad input (a model that is not there, a truncated model file, a tokenizer that does not
 * match, unconstrained output that is no design) as clear errors that keep the query and leave the
 * page working.
 *
 * The main flow loads the trained model this build ships (models/baton-orchestrator-tiny/, the
 * manifest's default: what a user gets without typing anything), from the build's own `models/`.
 * The bad-input case loads fixture folders in the tiny model's layout with random weights
 * (tests/e2e/orchestrate-fixture.ts: test fixtures, never a model), served by a real local HTTP
 * server in the hub's URL layout and typed into "Another hub model or URL…", so a load takes the
 * path a hub download takes. `MODEL` is what the main flow loads (`{ kind: 'url', repo: GOOD }`
 * runs it on the fixture instead).
 */
const GOOD = 'test/tiny';
const MODEL: { kind: 'url'; repo: string } | { kind: 'manifest'; id: string } = {
  kind: 'manifest',
  id: 'baton-orchestrator-tiny',
};

const TRUNCATED = 'test/truncated';
const MISMATCHED = 'test/other-tokenizer';

let browser: Browser;
let server: ModelServer;
let scratch = '';
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'baton-orch-e2e-'));
  await writeFixtureModel(join(scratch, 'good'));
  await writeFixtureModel(join(scratch, 'mismatched'), { tokenizerVocab: 320 });
  server = await startModelServer({
    [GOOD]: join(scratch, 'good'),
    [TRUNCATED]: join(scratch, 'good'),
    [MISMATCHED]: join(scratch, 'mismatched'),
  });
  for (const f of ['onnx/model.onnx', 'onnx/model_quantized.onnx', 'onnx/model_q4.onnx'])
    server.fault(TRUNCATED, f, { truncate: 4096 });
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const repoUrl = (repo: string): string => `${server.url}${repo}/resolve/main/`;

/** The main flow's model: a manifest entry (checked to be the default) or a URL. */
async function pickModel(page: Page): Promise<void> {
  if (MODEL.kind === 'url') return pickUrl(page, MODEL.repo);
  const option = page.locator(`[data-testid="orch-model"] option[value="${MODEL.id}"]`);
  await option.waitFor({ state: 'attached' });
  expect(await page.getByTestId('orch-model').inputValue()).toBe(MODEL.id);
}

async function pickUrl(page: Page, repo: string): Promise<void> {
  await page.getByTestId('orch-model').selectOption('__custom');
  await page.getByTestId('orch-custom-model').fill(repoUrl(repo));
}

/** Loads the picked model on wasm; answers the load state (`ready` or `error`), its problem codes and text. */
async function load(page: Page): Promise<string> {
  await page.getByTestId('orch-device').selectOption('wasm');
  await page.getByTestId('orch-load').click();
  const state = page.getByTestId('orch-load-state');
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid="orch-load-state"]')?.getAttribute('data-status');
      return s === 'ready' || s === 'error';
    },
    undefined,
    { timeout: 60_000 },
  );
  const status = (await state.getAttribute('data-status')) ?? '';
  return `${status} ${(await state.getAttribute('data-codes')) ?? ''} ${(await state.textContent()) ?? ''}`;
}

/**
 * Records every agent and edge count the live graph shows while the model writes (a mutation
 * observer in the page, so no intermediate state is missed between polls).
 */
async function watchGraph(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __graph: string[] };
    w.__graph = [];
    const note = (): void => {
      const dag = document.querySelector('[data-testid="orch-dag"]');
      if (!dag) return;
      const c = `${dag.getAttribute('data-agents')}/${dag.getAttribute('data-edges')}`;
      if (w.__graph[w.__graph.length - 1] !== c) w.__graph.push(c);
    };
    // A new generation starts a new record (the last run's graph is still shown until the click).
    document.querySelector('[data-testid="orch-start"]')?.addEventListener(
      'click',
      () => {
        w.__graph = [];
        // The graph as the new run first shows it (React renders the click's update first).
        requestAnimationFrame(note);
      },
      { capture: true },
    );
    new MutationObserver(note).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      attributeFilter: ['data-agents', 'data-edges'],
    });
  });
}

const graphSeen = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { __graph: string[] }).__graph);

/**
 * Clicks Interrupt from inside the page the moment the token count first shows tokens (a mutation
 * observer, so no poll or driver round trip comes between): a click from the driver could land
 * after a short generation ended.
 */
async function interruptOnFirstTokens(page: Page): Promise<void> {
  await page.evaluate(
    () =>
      new Promise<void>((resolve, reject) => {
        const tryClick = (): boolean => {
          const t = document.querySelector('[data-testid="orch-tokens"]')?.textContent ?? '';
          if (!(Number.parseInt(t, 10) > 0)) return false;
          const button = document.querySelector<HTMLButtonElement>('[data-testid="orch-interrupt"]');
          if (!button) {
            reject(new Error(`no Interrupt button once ${t} were written`));
            return true;
          }
          button.click();
          resolve();
          return true;
        };
        if (tryClick()) return;
        const seen = new MutationObserver(() => {
          if (tryClick()) seen.disconnect();
        });
        seen.observe(document.body, { subtree: true, childList: true, characterData: true });
      }),
  );
}

const genStatus = (page: Page): Promise<string | null> =>
  page.getByTestId('orch-gen-status').getAttribute('data-status');

async function finished(page: Page): Promise<string | null> {
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid="orch-gen-status"]')?.getAttribute('data-status');
      return s !== undefined && s !== null && s !== 'running';
    },
    undefined,
    { timeout: 120_000 },
  );
  return genStatus(page);
}

describe('the Orchestrate page', () => {
  it('loads the model with progress bars, interrupts a run, completes another, runs it on the simulator and shares the trace', async () => {
    const { page, errors, context } = await openPage(browser, '#/orchestrate');
    await page.getByTestId('orchestrate-page').waitFor();
    await pickModel(page);
    const loaded = await load(page);
    expect(loaded).toMatch(/^ready /);
    expect(await page.getByTestId('orch-device-reason').textContent()).not.toBe('');
    const bars = page.getByTestId('orch-file-progress');
    expect(await bars.count()).toBeGreaterThan(0);
    expect(await bars.first().locator('progress').isVisible()).toBe(true);
    const files = await bars.evaluateAll((els) => els.map((e) => e.getAttribute('data-file')));
    expect(files.some((f) => f?.endsWith('.onnx'))).toBe(true);

    // Interrupt one run as soon as the first text is in: the text written so far stays. The run is
    // a long one (unconstrained at temperature 2: a few hundred tokens under the default seed,
    // seconds on wasm), so it is still writing when the click lands.
    await page.getByTestId('orch-temperature').fill('2');
    await page.getByTestId('orch-constrained').setChecked(false);
    await page.getByTestId('orch-query').fill('Add the two numbers, then double the sum.');
    await page.getByTestId('orch-start').click();
    await page.getByTestId('orch-interrupt').waitFor();
    await interruptOnFirstTokens(page);
    expect(await finished(page)).toBe('interrupted');
    const kept = `${await page.getByTestId('orch-thinking').textContent()}${await page.getByTestId('orch-design-text').textContent()}`;
    expect(kept.replace(/…|\(none\)/g, '').length).toBeGreaterThan(0);
    expect(await page.getByTestId('orch-query').inputValue()).toBe(
      'Add the two numbers, then double the sum.',
    );

    // Complete another on a generated MASBench task, constrained and greedy, watching the graph grow.
    await page.getByTestId('orch-temperature').fill('0');
    await page.getByTestId('orch-constrained').setChecked(true);
    await page.getByTestId('orch-task-masbench').check();
    await page.getByTestId('orch-bench-axis').selectOption('depth');
    await page.getByTestId('orch-bench-value').fill('3');
    await page.getByTestId('orch-dom').selectOption('high');
    await watchGraph(page);
    await page.getByTestId('orch-start').click();
    expect(await finished(page)).toBe('done');
    expect(await page.getByTestId('orch-check').getAttribute('data-valid')).toBe('true');
    const seen = await graphSeen(page);
    const counts = seen.map((c) => c.split('/').map(Number) as [number, number]);
    // It grew while the model wrote: from nothing, never shrinking, through states between the
    // empty graph and the finished one (each update at most 50 ms of tokens).
    expect(counts[0]).toEqual([0, 0]);
    for (let i = 1; i < counts.length; i++) {
      const [a0, e0] = counts[i - 1] as [number, number];
      const [a1, e1] = counts[i] as [number, number];
      expect(a1 >= a0 && (a1 > a0 || e1 > e0)).toBe(true);
    }
    const [finalAgents, finalEdges] = counts[counts.length - 1] as [number, number];
    expect(finalAgents).toBeGreaterThan(0);
    if (finalAgents + finalEdges >= 2) expect(counts.length).toBeGreaterThanOrEqual(3);
    expect(await page.getByTestId('orch-constraint-stats').textContent()).toMatch(/masked steps \d+/);
    expect(await page.getByTestId('orch-tps').textContent()).toMatch(/tokens\/s/);

    // Run on the simulator: the trace page opens with the designed agents.
    const agents = Number(await page.getByTestId('orch-dag').getAttribute('data-agents'));
    await page.getByTestId('orch-run-sim').click();
    await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
    await page.getByTestId('trace-page').waitFor();
    expect(await page.getByTestId('trace-agent-count').getAttribute('data-count')).toBe(String(agents));

    // Its share link opens the same trace in a fresh tab.
    await page.click('[data-testid=share-button]');
    const link = await page.inputValue('[data-testid=share-link]');
    expect(link).toContain('#t=');
    const other = await context.newPage();
    await other.goto(link);
    await other.waitForURL(/#\/trace\//);
    await other.getByTestId('trace-page').waitFor();
    expect(await other.getByTestId('trace-agent-count').getAttribute('data-count')).toBe(String(agents));
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says next to the buttons why a free-text design cannot run on the simulator, and switches to a generated task', async () => {
    const { page, errors, context } = await openPage(browser, '#/orchestrate');
    await page.getByTestId('orchestrate-page').waitFor();
    await pickModel(page);
    expect(await load(page)).toMatch(/^ready /);
    await page.getByTestId('orch-query').fill('Add the two numbers, then double the sum.');
    await page.getByTestId('orch-start').click();
    expect(await finished(page)).toBe('done');
    expect(await page.getByTestId('orch-check').getAttribute('data-valid')).toBe('true');

    // The simulator button is disabled and looks it: not the primary fill, the reason on the page.
    const sim = page.getByTestId('orch-run-sim');
    expect(await sim.isDisabled()).toBe(true);
    const look = await sim.evaluate((el) => {
      const probe = document.createElement('button');
      probe.className = 'btn btn-primary';
      document.body.append(probe);
      const primary = getComputedStyle(probe).backgroundColor;
      probe.remove();
      const cs = getComputedStyle(el);
      return { bg: cs.backgroundColor, primary, cursor: cs.cursor };
    });
    expect(look.bg).not.toBe(look.primary);
    expect(look.cursor).toBe('not-allowed');
    expect(await page.getByTestId('orch-sim-blocker').textContent()).toContain(
      'not available: The simulator runs generated MASBench tasks only.',
    );
    await page.getByTestId('orch-sim-why').waitFor();
    expect(await page.getByTestId('orch-alt-local').textContent()).toContain('Ollama');
    expect(await page.locator('[data-testid="orch-alt-provider"] a[href="#/settings"]').count()).toBe(1);

    // "Use a generated MASBench task" switches the task panel to one and says to orchestrate again.
    await page.getByTestId('orch-use-masbench').click();
    expect(await page.getByTestId('orch-task-masbench').isChecked()).toBe(true);
    await page.getByTestId('orch-bench-question').waitFor();
    await page.getByTestId('orch-alt-switched').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows a truncated model file, a model that is not there and unconstrained garbage as clear errors, keeping the query', async () => {
    const { page, errors, context } = await openPage(browser, '#/orchestrate');
    await page.getByTestId('orchestrate-page').waitFor();
    const query = 'Count the words of the text, then report the count.';
    await page.getByTestId('orch-query').fill(query);

    // A model that is not there (a manifest entry or a URL pointing nowhere).
    await pickUrl(page, 'nobody/nothing');
    const gone = await load(page);
    expect(gone).toContain('E_MODEL_NOT_FOUND');
    expect(gone).toContain('not where the model says it is');
    expect(await page.getByTestId('orch-load-error').getAttribute('role')).toBe('alert');

    // A truncated model file: the download was cut short.
    await pickUrl(page, TRUNCATED);
    const cut = await load(page);
    expect(cut).toContain('E_MODEL_FILE');
    expect(cut).toContain('corrupt or truncated');

    // A tokenizer that does not match the model.
    await pickUrl(page, MISMATCHED);
    const other = await load(page);
    expect(other).toContain('E_MODEL_TOKENIZER');
    expect(other).toContain('does not match the model');
    expect(await page.getByTestId('orch-query').inputValue()).toBe(query);

    // The app keeps working: the whole model loads (from the same server) after the cache is cleared.
    await page.getByTestId('orch-clear-cache').click();
    await page.getByTestId('orch-cache-cleared').waitFor();
    await pickUrl(page, GOOD);
    expect(await load(page)).toMatch(/^ready /);

    // Unconstrained, random weights write no design: its problems are listed in words.
    await page.getByTestId('orch-constrained').uncheck();
    await page.getByTestId('orch-start').click();
    expect(await finished(page)).not.toBe('running');
    expect(await page.getByTestId('orch-check').getAttribute('data-valid')).toBe('false');
    const problems = page.getByTestId('orch-check-problems');
    expect(await problems.getAttribute('role')).toBe('alert');
    expect(((await problems.textContent()) ?? '').length).toBeGreaterThan(20);
    expect(await page.getByTestId('orch-run-sim').count()).toBe(0);
    expect(await page.getByTestId('orch-query').inputValue()).toBe(query);
    expect(errors).toEqual([]);
    await context.close();
  });
});
