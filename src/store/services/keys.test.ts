import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configureKeys,
  forgetKey,
  keyLocation,
  loadKey,
  loadPref,
  memoryKeyStore,
  savePref,
  saveKey,
  type KeyStorages,
} from './keys.ts';

const KEY = 'sk-test-PLANTED-0123456789abcdef';

let session: ReturnType<typeof memoryKeyStore>;
let local: ReturnType<typeof memoryKeyStore>;
let previous: KeyStorages;

beforeEach(() => {
  session = memoryKeyStore();
  local = memoryKeyStore();
  previous = configureKeys({ session, local });
});
afterEach(() => {
  configureKeys(previous);
});

describe('keys', () => {
  it('keeps a key in this tab only unless remembering is asked for', () => {
    expect(saveKey('openai', `  ${KEY} `, false)).toBe('session');
    expect(loadKey('openai')).toBe(KEY);
    expect(JSON.stringify(local.dump())).not.toContain(KEY);
    expect(JSON.stringify(session.dump())).toContain(KEY);
  });

  it('moves the key to the device when remembered, and back, never leaving two copies', () => {
    saveKey('groq', KEY, false);
    expect(saveKey('groq', KEY, true)).toBe('device');
    expect(JSON.stringify(session.dump())).not.toContain(KEY);
    expect(JSON.stringify(local.dump())).toContain(KEY);
    expect(saveKey('groq', KEY, false)).toBe('session');
    expect(JSON.stringify(local.dump())).not.toContain(KEY);
  });

  it('forgets a key everywhere; an empty key is a forget', () => {
    saveKey('openai', KEY, true);
    forgetKey('openai');
    expect(keyLocation('openai')).toBe('none');
    expect(loadKey('openai')).toBeNull();
    saveKey('openai', KEY, false);
    expect(saveKey('openai', '   ', false)).toBe('none');
    expect(loadKey('openai')).toBeNull();
  });

  it('keeps keys per provider', () => {
    saveKey('openai', 'sk-one-1234', false);
    saveKey('groq', 'gsk-two-5678', true);
    expect(loadKey('openai')).toBe('sk-one-1234');
    expect(loadKey('groq')).toBe('gsk-two-5678');
    expect(keyLocation('together')).toBe('none');
  });

  it('survives storages that throw', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => {
        throw new Error('denied');
      },
    };
    configureKeys({ session: broken, local: null });
    expect(saveKey('openai', KEY, false)).toBe('none');
    expect(loadKey('openai')).toBeNull();
    expect(loadPref('anything')).toBeUndefined();
  });

  it('stores preferences as JSON, per device or per tab', () => {
    savePref('p', { a: 1 });
    savePref('t', 'x', 'tab');
    expect(loadPref('p')).toEqual({ a: 1 });
    expect(loadPref('t', 'tab')).toBe('x');
    expect(loadPref('t')).toBeUndefined();
    savePref('p', undefined);
    expect(loadPref('p')).toBeUndefined();
  });
});
