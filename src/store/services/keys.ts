/**
 * API keys, kept out of the store: a key lives in sessionStorage (this tab only, gone when it
 * closes) unless the user opted in to "remember on this device", which moves it to localStorage.
 * Nothing else in Baton holds a key: the store only knows whether one is saved and where, and the
 * runner reads it at the moment it builds a client. Keys are per provider preset.
 */

/** The subset of the Web Storage API used here, so tests can pass in-memory stand-ins. */
export interface KeyStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export type KeyLocation = 'none' | 'session' | 'device';

export interface KeyStorages {
  session: KeyStore | null;
  local: KeyStore | null;
}

const PREFIX = 'baton.apiKey.';

/** Storage can be missing (privacy modes) or throw on access; a key then lives nowhere. */
function browserStorage(name: 'sessionStorage' | 'localStorage'): KeyStore | null {
  try {
    const s = (globalThis as Record<string, unknown>)[name] as KeyStore | undefined;
    return s ?? null;
  } catch {
    return null;
  }
}

let storages: KeyStorages | null = null;
const current = (): KeyStorages =>
  (storages ??= { session: browserStorage('sessionStorage'), local: browserStorage('localStorage') });

/** Swaps the storages (tests); returns the previous ones. */
export function configureKeys(next: KeyStorages): KeyStorages {
  const previous = current();
  storages = next;
  return previous;
}

/** An in-memory `KeyStore`, for tests and for browsers without Web Storage. */
export function memoryKeyStore(): KeyStore & { dump(): Record<string, string> } {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, v),
    removeItem: (k) => void map.delete(k),
    dump: () => Object.fromEntries(map),
  };
}

function read(store: KeyStore | null, provider: string): string | null {
  try {
    const v = store?.getItem(PREFIX + provider) ?? null;
    return v && v.length > 0 ? v : null;
  } catch {
    return null;
  }
}

function write(store: KeyStore | null, provider: string, key: string | null): void {
  try {
    if (key === null) store?.removeItem(PREFIX + provider);
    else store?.setItem(PREFIX + provider, key);
  } catch {
    // Quota or a disabled storage: the key then stays only where it could be written.
  }
}

/** The saved key for a provider: this tab's first, then the device's. */
export function loadKey(provider: string): string | null {
  const s = current();
  return read(s.session, provider) ?? read(s.local, provider);
}

export function keyLocation(provider: string): KeyLocation {
  const s = current();
  if (read(s.local, provider) !== null) return 'device';
  if (read(s.session, provider) !== null) return 'session';
  return 'none';
}

/**
 * Saves a key in exactly one place: localStorage when `remember`, else sessionStorage. The other
 * copy is removed, so turning "remember" off really takes the key off the device. An empty key
 * forgets it.
 */
export function saveKey(provider: string, key: string, remember: boolean): KeyLocation {
  const trimmed = key.trim();
  if (trimmed === '') {
    forgetKey(provider);
    return 'none';
  }
  const s = current();
  write(remember ? s.local : s.session, provider, trimmed);
  write(remember ? s.session : s.local, provider, null);
  return keyLocation(provider);
}

/** Removes the provider's key from both storages. */
export function forgetKey(provider: string): void {
  const s = current();
  write(s.session, provider, null);
  write(s.local, provider, null);
}

// ---------------------------------------------------------------- preferences (not secret)

/**
 * Non-secret preferences (connection, prices, budget) as JSON in localStorage, and small per-tab
 * markers in sessionStorage. Reading returns `unknown`: callers validate with their schema.
 */
export function loadPref(name: string, where: 'device' | 'tab' = 'device'): unknown {
  const s = current();
  try {
    const text = (where === 'device' ? s.local : s.session)?.getItem(name) ?? null;
    return text === null ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export function savePref(name: string, value: unknown, where: 'device' | 'tab' = 'device'): void {
  const s = current();
  try {
    const store = where === 'device' ? s.local : s.session;
    if (value === undefined) store?.removeItem(name);
    else store?.setItem(name, JSON.stringify(value));
  } catch {
    // A full or disabled storage: the preference lasts for this page only.
  }
}
