import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { masbenchTasks, parseAxes } from '../../src/eval/index.ts';
import {
  countTokens,
  defaultResponder,
  promptTokens,
  startOpenAIServer,
  type ChatRequestBody,
  type OpenAIServer,
} from '../server/openai-server.ts';
import { launch, openPage } from './browser.ts';
import { pickEval } from './eval-pick.ts';

/**
 * The Evaluate page on a provider: Settings name the local OpenAI-wire server (a key it requires,
 * 20% injected faults), the page runs cot and sc on MASBench tasks under a token budget that runs
 * out mid-way, and after a reload the same settings resume from the IndexedDB journal: the
 * evaluation completes and no task both methods had finished reaches the server again. The key is
 * in every request and nowhere in the journal.
 */
const KEY = `sk-test-EVALE2E-${Math.random().toString(36).slice(2)}`;
const MODEL = 'baton-eval-model';
const METHODS = 'cot,sc';
const AXES = 'depth:2,robustness:2';
const N = 3;
const SEED = 5;
const BUDGET = 12_000;

let browser: Browser;
let server: OpenAIServer;
beforeAll(async () => {
  browser = await launch();
  server = await startOpenAIServer({ apiKey: KEY, models: [MODEL] });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const byTest = (id: string): string => `[data-testid="${id}"]`;
const posts = () =>
  server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
const billed = (): number =>
  posts()
    .filter((q) => q.fault === undefined)
    .reduce((t, q) => {
      const body = q.body as ChatRequestBody;
      return t + promptTokens(body.messages ?? []) + countTokens(defaultResponder(body));
    }, 0);

async function evalSettings(page: Page, budgetTokens: number): Promise<void> {
  await page.waitForSelector(byTest('eval-page'));
  await pickEval(page, METHODS, AXES);
  await page.fill(byTest('eval-n'), String(N));
  await page.fill(byTest('eval-seed'), String(SEED));
  await page.selectOption(byTest('eval-backend'), 'provider');
  await page.fill(byTest('eval-budget'), String(budgetTokens));
  // The model has no price: a $ limit would refuse every call.
  await page.fill(byTest('eval-budget-usd'), '');
}

/** Every journal row and trace in this page's IndexedDB, as JSON text. */
async function journalDump(page: Page): Promise<{ rows: { key: string; taskId: string }[]; text: string }> {
  return page.evaluate(async () => {
    const all = async (db: string, store: string): Promise<unknown[]> =>
      new Promise((ok, fail) => {
        const open = indexedDB.open(db);
        open.onerror = () => fail(open.error);
        open.onsuccess = () => {
          const req = open.result.transaction(store).objectStore(store).getAll();
          req.onsuccess = () => ok(req.result as unknown[]);
          req.onerror = () => fail(req.error);
        };
      });
    const rows = (await all('baton-eval-rows', 'rows')) as { key: string; taskId: string }[];
    const traces = await all('baton-eval-traces', 'traces');
    return { rows, text: JSON.stringify([rows, traces]) };
  });
}

describe('Evaluate page on a provider', () => {
  it('stops at the budget, resumes after a reload without re-sending finished tasks, and keeps the key out', async () => {
    const { page, errors, context } = await openPage(browser, '#/settings');
    await page.waitForSelector(byTest('settings-page'));
    await page.selectOption(byTest('settings-provider'), 'custom');
    await page.fill(byTest('settings-base-url'), server.baseUrl);
    await page.fill(byTest('settings-model'), MODEL);
    await page.fill(byTest('settings-api-key'), KEY);
    await page.goto(page.url().replace(/#.*$/, '') + '#/eval');

    await evalSettings(page, BUDGET);
    const summary = await page.textContent(byTest('eval-budget-summary'));
    expect(summary).toContain(MODEL);
    expect(summary).toContain('hard budget 12,000 tokens');
    server.reset();
    server.setFaults({ rate: 0.2, seed: 21 });
    await page.click(byTest('eval-fresh'));
    await page.waitForSelector(byTest('eval-stopped'), { timeout: 60_000 });
    expect(await page.textContent(byTest('eval-stopped'))).toMatch(/budget/);
    const bill1 = billed();
    expect(posts().some((q) => q.fault !== undefined)).toBe(true);
    expect(bill1).toBeGreaterThan(0);
    expect(bill1).toBeLessThanOrEqual(BUDGET);
    const first = await journalDump(page);
    expect(first.rows.length).toBeGreaterThan(0);
    expect(first.rows.length).toBeLessThan(12);

    // Reload: the draft is gone; the key (this tab's session storage) and the journal are not.
    await page.reload();
    await evalSettings(page, 200_000);
    server.reset();
    server.setFaults({ rate: 0.2, seed: 22 });
    await page.click(byTest('eval-run'));
    await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 60_000 });
    expect(await page.textContent(byTest('eval-status'))).toContain('12 / 12 tasks');
    const second = await journalDump(page);
    expect(new Set(second.rows.map((r) => r.key)).size).toBe(12);

    // No task both methods finished before the reload reached the server after it.
    const axes = parseAxes(AXES);
    if (!axes.ok) throw new Error(axes.message);
    const tasks = masbenchTasks({ kind: 'masbench', axes: axes.axes, n: N, seed: SEED, split: 'test' });
    const query = new Map(tasks.map((t) => [t.id, JSON.stringify(t.task.query).slice(1, -1)]));
    const both = [...new Set(first.rows.map((r) => r.taskId))].filter(
      (id) => first.rows.filter((r) => r.taskId === id).length === 2,
    );
    const mentioning = (ids: string[]) =>
      posts().filter((q) => ids.some((id) => JSON.stringify(q.body).includes(query.get(id) ?? '\u0000')));
    expect(both.length).toBeGreaterThan(0);
    expect(mentioning(both)).toHaveLength(0);
    const rest = tasks.map((t) => t.id).filter((id) => !first.rows.some((r) => r.taskId === id));
    expect(mentioning(rest).length).toBeGreaterThan(0);

    // The key went in every request and into nothing the page kept.
    expect(posts().every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(second.text.length).toBeGreaterThan(1000);
    expect(second.text).not.toContain(KEY);
    expect(errors).toEqual([]);
    await context.close();
  });
});
