import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer } from '../../../tests/server/openai-server.ts';
import { runDesign } from '../../executor/run.ts';
import { designOf, eventsOf, testBackend, traceFor } from '../../executor/test-helpers.ts';
import { configureKeys, memoryKeyStore, type KeyStorages } from '../services/keys.ts';
import { resetBaton, useBaton } from '../store.ts';
import {
  connectionUrl,
  DEFAULT_BUDGET,
  DEFAULT_LOCAL_BUDGET,
  DEFAULT_PRICES,
  PROVIDER_PRESETS,
  priceOf,
  runBudgetOf,
} from './settings.ts';

const KEY = 'sk-test-PLANTED-0123456789abcdef';
let session: ReturnType<typeof memoryKeyStore>;
let local: ReturnType<typeof memoryKeyStore>;
let previous: KeyStorages;

beforeEach(() => {
  session = memoryKeyStore();
  local = memoryKeyStore();
  previous = configureKeys({ session, local });
  resetBaton();
});
afterEach(() => configureKeys(previous));

const s = () => useBaton.getState();

describe('settings slice', () => {
  it('starts from the presets and the default budget', () => {
    s().initSettings();
    expect(s().provider).toBe('openai');
    expect(s().connections.ollama.baseUrl).toBe('http://localhost:11434/v1');
    expect(s().budget).toEqual(DEFAULT_BUDGET);
    expect(s().prices).toEqual(DEFAULT_PRICES);
  });

  it('persists connection, budget, concurrency and prices, and reads them back after a reset', () => {
    s().initSettings();
    s().selectProvider('custom');
    s().setBaseUrl('http://127.0.0.1:9999/v1');
    s().setModel('my-model');
    s().setBudget({ totalUsd: null, totalTokens: 5000 });
    s().setConcurrency(99);
    s().setPrice('my-model', { inputPerMTok: 1, outputPerMTok: 2 });
    expect(s().concurrency).toBe(32);
    resetBaton();
    s().initSettings();
    expect(s().provider).toBe('custom');
    expect(s().connections.custom).toEqual({ baseUrl: 'http://127.0.0.1:9999/v1', model: 'my-model' });
    expect(s().budget).toEqual({ ...DEFAULT_BUDGET, totalUsd: null, totalTokens: 5000 });
    expect(s().prices['my-model']).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
  });

  it('ignores saved settings that do not validate', () => {
    local.setItem('baton.settings/1', JSON.stringify({ provider: 'evil', concurrency: -1 }));
    local.setItem('baton.prices/1', '{not json');
    s().initSettings();
    expect(s().provider).toBe('openai');
    expect(s().prices).toEqual(DEFAULT_PRICES);
  });

  it('never puts the key in the store or in the saved settings', () => {
    s().initSettings();
    s().setApiKey(KEY, false);
    expect(s().keyLocation).toBe('session');
    s().setRememberKey(true);
    expect(s().keyLocation).toBe('device');
    s().setBudget({ totalTokens: 1 });
    expect(JSON.stringify(useBaton.getState())).not.toContain(KEY);
    expect(local.getItem('baton.settings/1') ?? '').not.toContain(KEY);
    s().forgetApiKey();
    expect(s().keyLocation).toBe('none');
    expect(JSON.stringify([local.dump(), session.dump()])).not.toContain(KEY);
  });

  it('rejects base URLs with credentials or a query before testing', async () => {
    s().selectProvider('custom');
    s().setBaseUrl('https://user:pass@example.com/v1');
    expect(connectionUrl(s()).ok).toBe(false);
    await s().testConnection();
    expect(s().connectionTest).toMatchObject({ status: 'error' });
    s().setBaseUrl('');
    await s().testConnection();
    expect(s().connectionTest).toEqual({ status: 'error', message: 'Enter the base URL of the server.' });
  });

  it('gives local presets no price and no dollar limit by default, a token limit instead', () => {
    s().initSettings();
    for (const id of ['ollama', 'lmstudio', 'llamacpp', 'vllm'] as const) {
      expect(PROVIDER_PRESETS[id].local).toBe(true);
      s().selectProvider(id);
      expect(priceOf(s().connections[id].model, s().prices)).toBeUndefined();
      expect(s().budget).toEqual(DEFAULT_LOCAL_BUDGET);
      expect(runBudgetOf(s())).toEqual({ totalTokens: 200_000, perAgentTokens: 50_000 });
    }
    // A remote preset keeps its own budget, dollar limit included; each kind remembers its edits.
    s().selectProvider('openai');
    expect(runBudgetOf(s()).totalUsd).toBe(1);
    s().setBudget({ totalUsd: 5 });
    s().selectProvider('ollama');
    s().setBudget({ totalTokens: 9000 });
    expect(s().budget).toEqual({ ...DEFAULT_LOCAL_BUDGET, totalTokens: 9000 });
    s().selectProvider('openai');
    expect(s().budget).toEqual({ ...DEFAULT_BUDGET, totalUsd: 5 });
    resetBaton();
    s().initSettings();
    expect(s().budgets.local.totalTokens).toBe(9000);
    expect(s().budgets.remote.totalUsd).toBe(5);
  });

  it('reads settings saved before local presets had their own budget', () => {
    local.setItem(
      'baton.settings/1',
      JSON.stringify({
        provider: 'ollama',
        connections: {},
        budget: { totalTokens: 1000, totalUsd: 1, perAgentTokens: null },
        concurrency: 2,
      }),
    );
    s().initSettings();
    expect(s().provider).toBe('ollama');
    expect(s().budget).toEqual(DEFAULT_LOCAL_BUDGET);
    expect(s().budgets.remote).toEqual({ totalTokens: 1000, totalUsd: 1, perAgentTokens: null });
  });

  it("runs an unpriced local model under the local preset's budget; the dollar limit would refuse it", async () => {
    const server = await startOpenAIServer({ responder: () => 'Done. \\boxed{5}' });
    try {
      s().initSettings();
      s().selectProvider('ollama');
      const design = designOf([{ id: 'A' }]);
      const run = (budget: ReturnType<typeof runBudgetOf>) =>
        runDesign({
          trace: traceFor('What is 2 + 3?'),
          design,
          backend: testBackend(server.baseUrl),
          budget,
        });
      const local = await run(runBudgetOf(s()));
      expect(eventsOf(local, 'agent.error')).toEqual([]);
      expect(local.execution.status).toBe('completed');
      s().selectProvider('openai');
      const remote = await run(runBudgetOf(s()));
      expect(eventsOf(remote, 'agent.error')[0]?.error).toMatch(/no price is known/);
    } finally {
      server.close();
    }
  });
});
