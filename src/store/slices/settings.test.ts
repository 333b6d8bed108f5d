import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configureKeys, memoryKeyStore, type KeyStorages } from '../services/keys.ts';
import { resetBaton, useBaton } from '../store.ts';
import { connectionUrl, DEFAULT_BUDGET, DEFAULT_PRICES } from './settings.ts';

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
});
