import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  countTokens,
  defaultResponder,
  promptTokens,
  startOpenAIServer,
  type ChatRequestBody,
  type OpenAIServer,
  type RecordedRequest,
} from '../../../tests/server/openai-server.ts';
import { masbenchTasks, type EvalDocument } from '../../eval/index.ts';
import { openChannelEvalWorker } from '../../workers/index.ts';
import { configureEvalWorker, idbEvalJournal, type EvalJournal } from '../services/eval.ts';
import { configureKeys, memoryKeyStore, type KeyStorages } from '../services/keys.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureEvalJournal, evalBackendBlockers, evalCheckOf, evalConfigOf } from './eval.ts';

/**
 * The Evaluate page's provider path end to end below the UI: the slice reads the Settings page's
 * provider and key, the real evaluation handlers run on a MessageChannel (the page's transport),
 * the journal is IndexedDB (fake-indexeddb), and the provider is the local OpenAI-wire server with
 * injected faults. A budget runs out mid-way; a "reload" (a fresh store, the same IndexedDB)
 * resumes without sending a finished task again, and the key is nowhere but in the requests.
 */
const s = () => useBaton.getState();
const KEY = `sk-test-EVAL-${Math.random().toString(36).slice(2)}`;
const AXES = 'depth:2,robustness:2';
const N = 3;

let server: OpenAIServer;
let worker: Awaited<ReturnType<typeof openChannelEvalWorker>>;
let keys: KeyStorages;
let journal: EvalJournal;
let previousJournal: EvalJournal;

beforeAll(async () => {
  server = await startOpenAIServer({ apiKey: KEY });
  worker = await openChannelEvalWorker();
  configureEvalWorker(worker);
  keys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
  journal = idbEvalJournal(`baton-eval-test-${Math.random().toString(36).slice(2)}`);
  previousJournal = configureEvalJournal(journal);
});
afterAll(async () => {
  configureEvalWorker(null);
  configureEvalJournal(previousJournal);
  configureKeys(keys);
  worker.close();
  await server.close();
});
beforeEach(() => resetBaton());

/** What the Settings page holds: the local server as a custom provider, a key kept in this tab. */
function settings(): void {
  s().selectProvider('custom');
  s().setBaseUrl(server.baseUrl);
  s().setModel('test-model');
  s().setApiKey(KEY, false);
}

/** Tokens the server billed: usage of every chat request it answered (faulted ones bill nothing). */
function billed(requests: readonly RecordedRequest[]): number {
  let total = 0;
  for (const q of requests) {
    if (q.method !== 'POST' || !q.path.endsWith('/chat/completions') || q.fault !== undefined) continue;
    const body = q.body as ChatRequestBody;
    total += promptTokens(body.messages ?? []) + countTokens(defaultResponder(body));
  }
  return total;
}

const rowTokens = (d: EvalDocument, skip?: Set<string>): number =>
  d.rows.filter((r) => !skip?.has(r.key)).reduce((t, r) => t + r.tokens, 0);

describe('the Evaluate page on a provider', () => {
  it('refuses to start without a provider or a budget', async () => {
    s().setEvalDraft({ backend: 'provider', methods: 'cot', axes: AXES, n: N });
    s().selectProvider('custom');
    s().setBaseUrl('');
    expect(evalBackendBlockers(s()).length).toBeGreaterThan(0);
    await s().startEval();
    expect(s().evalRun.status).toBe('error');
    settings();
    expect(evalBackendBlockers(s())).toEqual([]);
    await s().startEval();
    const run = s().evalRun;
    expect(run.status === 'error' && run.problems[0]?.message).toMatch(/needs a budget/);
    // A $ limit on a model without a price would refuse every call: said before start.
    s().setEvalDraft({ budgetUsd: '0.5' });
    expect(evalCheckOf(s())).toMatchObject({ ok: false, problems: [{ message: /no price for test-model/ }] });
    s().setPrice('test-model', { inputPerMTok: 1, outputPerMTok: 2 });
    expect(evalCheckOf(s()).ok).toBe(true);
    s().setEvalDraft({ budgetUsd: '' });
    expect(server.requests.filter((q) => q.method === 'POST')).toHaveLength(0);
    // The config records the provider without its key, and is keyed apart from the simulator's.
    const c = evalConfigOf(
      { ...s().evalDraft, budgetTokens: '10' },
      { provider: 'custom', baseUrl: server.baseUrl, model: 'test-model' },
    );
    expect(c.ok && c.config.backend).toEqual({
      kind: 'remote',
      provider: 'custom',
      baseUrl: server.baseUrl,
      model: 'test-model',
    });
  });

  it('stops at the budget, resumes after a reload without re-billing finished rows, and never records the key', async () => {
    settings();
    const draft = {
      backend: 'provider',
      methods: 'cot,sc',
      axes: AXES,
      n: N,
      seed: 5,
      concurrency: 3,
    } as const;
    const jobs = 2 * 2 * N;
    server.reset();
    server.setFaults({ rate: 0.2, seed: 11 });
    const budget = 12000;
    s().setEvalDraft({ ...draft, budgetTokens: String(budget) });
    const seen: number[] = [];
    const unsub = useBaton.subscribe((st) => {
      const r = st.evalRun;
      if (r.status === 'running' && r.progress) seen.push(r.progress.tokens - r.resumedSpend.tokens);
    });
    await s().startEval();
    unsub();
    const bill1 = billed(server.requests);
    const sent1 = server.requests.filter((q) => q.method === 'POST');
    expect(sent1.some((q) => q.fault !== undefined)).toBe(true);
    // Every request carried the key (the server answers 401 otherwise).
    expect(sent1.every((q) => q.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    const run1 = s().evalRun;
    expect(run1.status === 'stopped' && run1.reason).toMatch(/^budget/);
    const doc1 = s().evalDoc as EvalDocument;
    expect(doc1.complete).toBe(false);
    expect(doc1.rows.length).toBeGreaterThan(0);
    expect(doc1.rows.length).toBeLessThan(jobs);
    expect(doc1.spend.tokens).toBe(bill1);
    expect(bill1).toBeLessThanOrEqual(budget);
    // Progress reported the budget used as it went, never past the budget.
    expect(seen.length).toBeGreaterThan(0);
    expect(Math.max(...seen)).toBeLessThanOrEqual(budget);

    // A reload: a fresh store; the journal (IndexedDB) and the key (session storage) stay.
    resetBaton();
    settings();
    server.reset();
    server.setFaults({ rate: 0.2, seed: 12 });
    s().setEvalDraft({ ...draft, budgetTokens: '200000' });
    await s().startEval();
    const bill2 = billed(server.requests);
    const run2 = s().evalRun;
    expect(run2.status, JSON.stringify(run2)).toBe('done');
    const doc2 = s().evalDoc as EvalDocument;
    expect(doc2.complete).toBe(true);
    expect(doc2.rows).toHaveLength(jobs);
    expect(new Set(doc2.rows.map((r) => r.key)).size).toBe(jobs);
    for (const r of doc1.rows) expect(doc2.rows.find((x) => x.key === r.key)).toEqual(r);
    // Tasks both methods finished before the reload: no request after it mentions them.
    const cfg = evalConfigOf(
      { ...s().evalDraft },
      { provider: 'custom', baseUrl: server.baseUrl, model: 'test-model' },
    );
    if (!cfg.ok || cfg.config.taskSet.kind !== 'masbench') throw new Error('config');
    const queries = new Map(masbenchTasks(cfg.config.taskSet).map((t) => [t.id, t.task.query]));
    const finishedBoth = [...new Set(doc1.rows.map((r) => r.taskId))].filter(
      (id) => doc1.rows.filter((r) => r.taskId === id).length === 2,
    );
    const mentioning = (ids: readonly string[]) =>
      server.requests.filter((q) => {
        const text = JSON.stringify((q.body as ChatRequestBody | undefined)?.messages ?? []);
        return ids.some((id) => text.includes(JSON.stringify(queries.get(id)).slice(1, -1)));
      });
    expect(finishedBoth.length).toBeGreaterThan(0);
    expect(mentioning(finishedBoth)).toHaveLength(0);
    // (The same search does find the tasks that were still to run.)
    const unfinished = [...queries.keys()].filter((id) => !doc1.rows.some((r) => r.taskId === id));
    expect(unfinished.length).toBeGreaterThan(0);
    expect(mentioning(unfinished).length).toBeGreaterThan(0);
    // Totals are exact: this run billed its new rows and its own retried attempts; both runs together
    // billed every row once plus what each threw away.
    const old = new Set(doc1.rows.map((r) => r.key));
    expect(bill2).toBe(rowTokens(doc2, old) + doc2.spend.wastedTokens);
    expect(bill1 + bill2).toBe(rowTokens(doc2) + doc1.spend.wastedTokens + doc2.spend.wastedTokens);

    // The key is in no result, journal row, trace or export.
    const recorded = [JSON.stringify(doc2), JSON.stringify(await journal.rows(cfg.config))];
    for (const r of doc2.rows) recorded.push(JSON.stringify(await journal.trace(r.traceId)));
    for (const kind of ['json', 'rows-csv', 'summary-csv'] as const)
      recorded.push(s().exportEval(kind)?.text ?? '');
    expect(recorded.join('\n').length).toBeGreaterThan(1000);
    for (const text of recorded) expect(text).not.toContain(KEY);
    expect(JSON.stringify(s().evalRun)).not.toContain(KEY);
  }, 120_000);

  it('keeps a wrong key out of everything recorded when the provider echoes it back', async () => {
    const echo = await startOpenAIServer({ apiKey: KEY, echoKeyInErrors: true });
    try {
      const wrong = `sk-test-WRONG-${Math.random().toString(36).slice(2)}`;
      s().selectProvider('custom');
      s().setBaseUrl(echo.baseUrl);
      s().setModel('test-model');
      s().setApiKey(wrong, false);
      s().setEvalDraft({ backend: 'provider', methods: 'cot', axes: 'depth:2', n: 2, budgetTokens: '50000' });
      await s().startEval({ fresh: true });
      // The server saw the key and said so in its answers.
      const sent = echo.requests.filter((q) => q.method === 'POST');
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every((q) => q.headers.authorization === `Bearer ${wrong}`)).toBe(true);
      const doc = s().evalDoc as EvalDocument;
      expect(doc.rows.length).toBeGreaterThan(0);
      expect(doc.rows.every((r) => r.status === 'failed')).toBe(true);
      const recorded = [JSON.stringify(doc), JSON.stringify(s().evalRun)];
      for (const r of doc.rows) recorded.push(JSON.stringify(await journal.trace(r.traceId)));
      expect(recorded.join('').length).toBeGreaterThan(500);
      for (const text of recorded) expect(text).not.toContain(wrong);
      // The provider's answer is kept, with the key taken out.
      expect(recorded.join('')).toContain('Incorrect API key provided: [redacted]');
    } finally {
      await echo.close();
    }
  });
});
