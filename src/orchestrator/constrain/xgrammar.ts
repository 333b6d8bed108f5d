/**
 * Loading @mlc-ai/web-xgrammar and a synchronous mask read.
 *
 * The package's `lib/index.js` is a UMD bundle in a package marked `"type": "module"`: in Node,
 * importing it gives no named exports but sets `globalThis.xgrammar`, and its Emscripten loader
 * needs `require` and `__filename` as globals; a bundler wraps it as CommonJS, so in the browser
 * the import gives the exports. Its wasm is inlined (a data URI), so it works offline.
 *
 * Its `getNextTokenBitmask()` is async only because every call first awaits the one-time binding
 * initialisation; after that the native `GetNextTokenBitmask` is synchronous, but the bundle keeps
 * the helper that views the returned `std::vector<int32_t>` (and the wasm memory) private. So the
 * first initialisation runs here, inside a short wrapper around `WebAssembly.instantiate` that
 * remembers the instance's memory; a mask is then read straight from that memory (libc++'s vector
 * is `{begin, end, capacity}` pointers). transformers.js calls logits processors synchronously, so
 * this is the path `DesignConstraint.mask()` takes; `xgrammar-sync.test.ts` checks it against the
 * async API. Where the memory could not be captured (another copy initialised the binding first)
 * the vector is read element by element: correct, about 100 times slower.
 */
import type xgDefault from '@mlc-ai/web-xgrammar';

export type Xgrammar = typeof xgDefault;
export type XgTokenizerInfo = InstanceType<Xgrammar['TokenizerInfo']>;
export type XgCompiledGrammar = InstanceType<Xgrammar['CompiledGrammar']>;
export type XgMatcher = Awaited<ReturnType<Xgrammar['GrammarMatcher']['createGrammarMatcher']>>;

/** The embind handles the bundle's public classes wrap (typed here as far as this file uses them). */
interface VectorIntHandle {
  size(): number;
  get(i: number): number;
  delete(): void;
  $$?: { ptr?: number };
}
interface MatcherHandle {
  GetNextTokenBitmask(vocabSize: number): VectorIntHandle;
}

export interface LoadedXgrammar {
  xg: Xgrammar;
  /** The binding's wasm memory; null when it could not be captured (slow mask reads). */
  memory: WebAssembly.Memory | null;
}

let loading: Promise<LoadedXgrammar> | null = null;

const isNode = (): boolean =>
  typeof process === 'object' &&
  typeof (process as { versions?: { node?: string } }).versions?.node === 'string';

async function prepareNodeGlobals(): Promise<void> {
  const g = globalThis as { require?: unknown; __filename?: unknown };
  if (typeof g.require !== 'function') {
    const specifier = 'node:module';
    const mod = (await import(/* @vite-ignore */ specifier)) as {
      createRequire: (url: string) => unknown;
    };
    g.require = mod.createRequire(import.meta.url);
  }
  if (typeof g.__filename !== 'string') g.__filename = '/xgrammar/index.js';
}

async function load(): Promise<LoadedXgrammar> {
  if (isNode()) await prepareNodeGlobals();
  // Node runs the file as an ES module: the UMD wrapper finds no `exports` and sets the global.
  // Bundlers (Vite) wrap it as CommonJS instead, and the import gives the exports.
  const mod = (await import('@mlc-ai/web-xgrammar')) as Partial<Xgrammar> & { default?: Partial<Xgrammar> };
  const candidates = [(globalThis as { xgrammar?: Partial<Xgrammar> }).xgrammar, mod.default, mod];
  const xg = candidates.find((c) => typeof c?.GrammarMatcher === 'function') as Xgrammar | undefined;
  if (!xg?.GrammarMatcher) throw new Error('@mlc-ai/web-xgrammar did not load (no globalThis.xgrammar).');
  let memory: WebAssembly.Memory | null = null;
  const original = WebAssembly.instantiate;
  const remember = (instance: WebAssembly.Instance): void => {
    for (const value of Object.values(instance.exports)) {
      if (value instanceof WebAssembly.Memory) memory = value;
    }
  };
  WebAssembly.instantiate = async function (...args: unknown[]): Promise<unknown> {
    const result = (await (original as (...a: unknown[]) => Promise<unknown>).apply(WebAssembly, args)) as
      WebAssembly.Instance | WebAssembly.WebAssemblyInstantiatedSource;
    remember('instance' in result ? result.instance : result);
    return result;
  } as typeof WebAssembly.instantiate;
  try {
    // Any call initialises the binding; this one is the cheapest.
    const g = await xg.Grammar.fromEBNF('root ::= "a"');
    g.dispose();
  } finally {
    WebAssembly.instantiate = original;
  }
  return { xg, memory };
}

/** Loads the bundle once per page or process. */
export function loadXgrammar(): Promise<LoadedXgrammar> {
  loading ??= load().catch((e: unknown) => {
    loading = null;
    throw e;
  });
  return loading;
}

/**
 * The matcher's next-token bitmask, synchronously, into `out` (length ceil(vocabSize / 32); bit
 * `i % 32` of word `i >> 5` set = token i allowed). Call only after `loadXgrammar()` resolved.
 */
export function fillNextTokenBitmask(
  loaded: LoadedXgrammar,
  matcher: XgMatcher,
  vocabSize: number,
  out: Int32Array,
): void {
  const handle = (matcher as unknown as { handle: MatcherHandle }).handle;
  const vec = handle.GetNextTokenBitmask(vocabSize);
  try {
    const ptr = vec.$$?.ptr;
    if (loaded.memory && typeof ptr === 'number') {
      const words = new Uint32Array(loaded.memory.buffer);
      const begin = words[ptr >> 2] as number;
      const end = words[(ptr >> 2) + 1] as number;
      if ((end - begin) >> 2 === out.length && (begin & 3) === 0) {
        out.set(new Int32Array(loaded.memory.buffer, begin, out.length));
        return;
      }
    }
    const n = Math.min(vec.size(), out.length);
    for (let i = 0; i < n; i++) out[i] = vec.get(i);
  } finally {
    vec.delete();
  }
}
