/**
 * Loads an orchestrator model with transformers.js: config, tokenizer and ONNX session, on the
 * device and dtype `device.ts` chose, reporting every file's bytes as they arrive, then checks that
 * the tokenizer fits the model and warms the session up with one forward pass.
 *
 * transformers.js is imported here on first use only (`import()`), so neither the app's first page
 * nor a CLI command that never loads a model pays for it. Its settings live on one global `env`
 * object; `configure` sets all of them for the source at hand on every load, so a load never
 * inherits where the previous model came from:
 *
 * - nothing from a CDN: onnxruntime-web's `.mjs`/`.wasm` come from this build (`wasmPaths`),
 * - a `local` source reads `<localRoot><folder>/` and nothing else (a URL root through the remote
 *   route, see `localServed`); a `remote` source reads the hub URL layout
 *   `<remoteHost>{model}/resolve/{revision}/<file>` and nothing local,
 * - downloaded files are kept in the browser's Cache API (`useBrowserCache`) or, in Node, in the
 *   folder the caller names (remote files need one: onnxruntime-node opens the model by path).
 *
 * Failures come back as `E_MODEL_*` problems (`classify`), never as exceptions.
 */
import type * as TransformersModule from '@huggingface/transformers';
import { describe } from '../core/errors.ts';
import { fail, type Result } from '../core/result.ts';
import {
  MAX_MANIFEST_BYTES,
  parseManifest,
  type Dtype,
  type Manifest,
  type ModelSource,
} from './manifest.ts';
import type { Device } from './device.ts';

/** transformers.js, as loaded by `import()`. */
export type Transformers = typeof TransformersModule;
type Tokenizer = Awaited<ReturnType<Transformers['AutoTokenizer']['from_pretrained']>>;
type CausalLm = Awaited<ReturnType<Transformers['AutoModelForCausalLM']['from_pretrained']>>;

let transformers: Promise<Transformers> | null = null;
/** The library, imported once. */
export function loadTransformers(): Promise<Transformers> {
  transformers ??= import('@huggingface/transformers');
  return transformers;
}

/**
 * transformers.js creates a browser session on one promise chain (`webInitChain =
 * webInitChain.then(load)` in its backends/onnx.js), so one session that fails to create (a
 * truncated or corrupt file) leaves that chain rejected, and every later load in the same worker
 * fails with that same error without reading its own file. The guard wraps onnxruntime-web's
 * `InferenceSession.create` (the very class transformers.js calls: one module in the build): a
 * failure is recorded in `sessionFailures` and answers a stand-in session, so the chain stays
 * resolved; `loadModel` then fails the load with the recorded error. Only the browser has the chain.
 */
const sessionFailures: unknown[] = [];
let sessionGuard: Promise<void> | null = null;

/** A session that never was: releasing it does nothing; anything else throws why it failed. */
function failedSession(e: unknown): object {
  return new Proxy(
    {},
    {
      get: (_t, key) => {
        if (key === 'then') return undefined;
        if (key === 'release') return () => Promise.resolve();
        throw e;
      },
      set: () => true,
    },
  );
}

export function guardSessionChain(): Promise<void> {
  sessionGuard ??= import('onnxruntime-web/webgpu').then((ort) => {
    const S = ort.InferenceSession as unknown as { create: (...a: unknown[]) => Promise<unknown> };
    const create = S.create.bind(S);
    S.create = (...a: unknown[]) =>
      create(...a).catch((e: unknown) => {
        sessionFailures.push(e);
        return failedSession(e);
      });
  });
  return sessionGuard;
}

/**
 * `config.json`'s `baton.format` in Baton's own model folders (src/lm/hf-files.ts
 * `MODEL_FOLDER_FORMAT`; load.test.ts holds the two equal). Written out, not imported: the `lm`
 * front door brings the ONNX writer and its protobuf schema, which no page needs to load a model.
 */
export const BATON_MODEL_FOLDER_FORMAT = 'baton.tiny-gpt/1';

export type LoadErrorCode =
  'E_MODEL_NOT_FOUND' | 'E_MODEL_NETWORK' | 'E_MODEL_FILE' | 'E_MODEL_TOKENIZER' | 'E_MODEL_DEVICE';

export interface LoadProblem {
  code: LoadErrorCode;
  message: string;
  path?: string;
}

export type LoadEvent =
  | { kind: 'file'; file: string; status: 'start' | 'progress' | 'done'; loaded: number; total: number }
  | { kind: 'stage'; stage: 'config' | 'tokenizer' | 'model' | 'warmup'; message: string };

export interface LoadOptions {
  source: ModelSource;
  device: Device;
  dtype: Dtype;
  /** Browser: onnxruntime-web's files in this build. */
  wasmPaths?: { mjs: string; wasm: string };
  /** Browser: keep files in the Cache API. */
  useBrowserCache?: boolean;
  /** Node: the folder downloaded files are kept in; null keeps none (only local folders load then). */
  cacheDir?: string | null;
  onEvent?: (e: LoadEvent) => void;
  /** Aborts downloads. */
  signal?: AbortSignal;
  /** The fetch downloads go through (default the global one). */
  fetch?: typeof fetch;
}

export interface LoadedLm {
  tf: Transformers;
  tokenizer: Tokenizer;
  model: CausalLm;
  source: ModelSource;
  device: Device;
  dtype: Dtype;
  /** The model's output size (from the warm-up's logits). */
  vocabSize: number;
  /** Token ids the tokenizer knows. */
  tokenizerSize: number;
  /** The folder is one of Baton's tiny models (its config.json has the `baton` block): the `tiny` format. */
  batonTiny: boolean;
  eosIds: number[];
  files: { file: string; bytes: number }[];
  loadMs: number;
  warmupMs: number;
}

export type LoadResult = { ok: true; lm: LoadedLm } | { ok: false; problem: LoadProblem };

/**
 * A `local` source whose root is a URL (the browser: `<base>models/`) is read through
 * transformers.js' remote route, `<localRoot>{model}/<file>`, with that URL as the only host. Its
 * local route cannot read a URL root: it fetches a file there, but its existence check
 * (`get_file_metadata`, which decides whether `tokenizer_config.json` is there) skips any local path
 * that is a URL, so the tokenizer loads without its files and fails ("reading 'tokenizer_class'").
 * A folder on disk (Node) keeps the local route.
 */
export const localServed = (s: ModelSource): boolean =>
  s.kind === 'local' && /^https?:\/\//i.test(s.localRoot);

/** Sets transformers.js' global `env` for one source; see the file header. */
export function configure(tf: Transformers, o: LoadOptions): void {
  const { env } = tf;
  const s = o.source;
  const served = localServed(s);
  env.allowLocalModels = s.kind === 'local' && !served;
  env.allowRemoteModels = s.kind === 'remote' || served;
  if (s.kind === 'remote') {
    env.remoteHost = s.remoteHost;
    env.remotePathTemplate = s.remotePathTemplate;
  } else if (served) {
    env.remoteHost = s.localRoot;
    env.remotePathTemplate = '{model}/';
  } else env.localModelPath = s.localRoot;
  // The Cache API exists in pages and workers (not in Node 20, where files go to `cacheDir`).
  const browser = typeof caches !== 'undefined';
  env.useBrowserCache = browser && (o.useBrowserCache ?? true);
  env.useFSCache = !browser && !!o.cacheDir;
  env.cacheDir = o.cacheDir ?? null;
  env.useCustomCache = false;
  const baseFetch = o.fetch ?? globalThis.fetch.bind(globalThis);
  const signal = o.signal;
  env.fetch = (input: string | URL, init?: RequestInit) => baseFetch(input, { ...init, signal });
  const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown; proxy?: boolean } };
  if (o.wasmPaths && onnx.wasm) onnx.wasm.wasmPaths = { ...o.wasmPaths };
}

const sentence = (code: LoadErrorCode, detail: string, path?: string): LoadProblem => ({
  code,
  message: describe(code, detail),
  ...(path ? { path } : {}),
});

const text = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 2000);

/**
 * The problem a thrown load error is: a file missing (404, or absent locally), the network, a file
 * that does not parse (corrupt, truncated: protobuf, JSON, ONNX graph errors) or a device that
 * cannot run it. `file` is the file being read when it is known.
 */
export function classify(
  e: unknown,
  stage: 'config' | 'tokenizer' | 'model',
  fileSeen?: string,
): LoadProblem {
  const msg = text(e);
  // The file the message names, when it names one (transformers.js quotes the path or URL).
  const named = /"[^"]*?\/((?:onnx\/)?[^/"]+\.(?:onnx(?:_data(?:_\d+)?)?|json))"/.exec(msg)?.[1];
  const file = named ?? fileSeen;
  const name = e instanceof Error ? e.name : '';
  if (name === 'AbortError') return sentence('E_MODEL_NETWORK', 'the download was cancelled', file);
  if (
    name === 'ModelFileNotFoundError' ||
    /\b404\b|not found|could not locate file|file was not found/i.test(msg)
  )
    return sentence('E_MODEL_NOT_FOUND', msg, file);
  if (/fetch failed|NetworkError|Failed to fetch|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|socket|network/i.test(msg))
    return sentence('E_MODEL_NETWORK', msg, file);
  if (/webgpu|adapter|backend|execution provider|no available backend/i.test(msg))
    return sentence('E_MODEL_DEVICE', msg, file);
  if (e instanceof SyntaxError || /JSON/.test(msg))
    return sentence('E_MODEL_FILE', `${file ?? stage} is not valid JSON (${msg})`, file);
  if (stage === 'model')
    return sentence(
      'E_MODEL_FILE',
      `the ONNX model could not be read (${msg}). If it was cut off while downloading, clear the model cache and load again`,
      file,
    );
  return sentence('E_MODEL_FILE', msg, file);
}

/** The ids a tokenizer can produce: one past the largest id in its vocabulary and added tokens. */
export function tokenizerSizeOf(tokenizer: Tokenizer): number {
  const vocab = tokenizer.get_vocab() as Map<string, number> | Record<string, number>;
  let max = -1;
  for (const id of vocab instanceof Map ? vocab.values() : Object.values(vocab)) if (id > max) max = id;
  for (const id of tokenizer.all_special_ids) if (id > max) max = id;
  return max + 1;
}

/**
 * A tokenizer fits a model when every id it produces is a row of the model's output and it covers
 * at least 90% of them: hub exports pad the output to a multiple of 64 or 128 (Qwen2.5: 151,665
 * tokens, 151,936 rows), while another model's tokenizer misses by far more or overflows.
 */
export function tokenizerMismatch(tokenizerSize: number, modelVocab: number): string | null {
  if (tokenizerSize > modelVocab)
    return `the tokenizer has ${tokenizerSize} tokens but the model only ${modelVocab} outputs`;
  if (tokenizerSize < 0.9 * modelVocab)
    return `the tokenizer has ${tokenizerSize} tokens but the model ${modelVocab} outputs: it belongs to another model`;
  return null;
}

const now = (): number => performance.now();

export async function loadModel(o: LoadOptions): Promise<LoadResult> {
  const t0 = now();
  const emit = (e: LoadEvent): void => o.onEvent?.(e);
  const tf = await loadTransformers();
  configure(tf, o);
  const s = o.source;
  const revision = s.kind === 'remote' ? s.revision : 'main';
  const sizes = new Map<string, number>();
  let current: string | undefined;
  // transformers.js reads the ONNX file and generation_config.json at once, so the last file seen is
  // not always the one that failed: a model-stage error names the last ONNX file, a JSON error the
  // last JSON file (unless its message names the file itself).
  let lastOnnx: string | undefined;
  let lastJson: string | undefined;
  const modelFile = (e: unknown): string | undefined =>
    (e instanceof SyntaxError || /JSON/.test(text(e)) ? lastJson : lastOnnx) ?? current;
  const progress_callback = (p: { status: string; file?: string; loaded?: number; total?: number }) => {
    if (!p.file) return;
    current = p.file;
    if (/\.json$/.test(p.file)) lastJson = p.file;
    else if (/\.onnx(_data(_\d+)?)?$/.test(p.file)) lastOnnx = p.file;
    if (p.status === 'initiate') emit({ kind: 'file', file: p.file, status: 'start', loaded: 0, total: 0 });
    else if (p.status === 'progress') {
      const loaded = Number(p.loaded) || 0;
      const total = Number(p.total) || 0;
      sizes.set(p.file, Math.max(loaded, total));
      emit({ kind: 'file', file: p.file, status: 'progress', loaded, total });
    } else if (p.status === 'done') {
      const size = sizes.get(p.file) ?? 0;
      emit({ kind: 'file', file: p.file, status: 'done', loaded: size, total: size });
    }
  };
  const common = { revision, progress_callback: progress_callback as never };

  emit({ kind: 'stage', stage: 'config', message: 'reading config.json' });
  let config: Awaited<ReturnType<Transformers['AutoConfig']['from_pretrained']>>;
  try {
    config = await tf.AutoConfig.from_pretrained(s.repo, common);
  } catch (e) {
    return { ok: false, problem: classify(e, 'config', current ?? 'config.json') };
  }
  emit({ kind: 'stage', stage: 'tokenizer', message: 'reading the tokenizer' });
  let tokenizer: Tokenizer;
  try {
    tokenizer = await tf.AutoTokenizer.from_pretrained(s.repo, common);
  } catch (e) {
    return { ok: false, problem: classify(e, 'tokenizer', current ?? 'tokenizer.json') };
  }
  const tokenizerSize = tokenizerSizeOf(tokenizer);
  const configVocab = Number((config as unknown as { vocab_size?: unknown }).vocab_size);
  if (Number.isFinite(configVocab) && configVocab > 0) {
    const wrong = tokenizerMismatch(tokenizerSize, configVocab);
    if (wrong)
      return {
        ok: false,
        problem: sentence('E_MODEL_TOKENIZER', `${wrong} (config.json vocab_size)`, 'tokenizer.json'),
      };
  }

  emit({ kind: 'stage', stage: 'model', message: `loading the ${o.dtype} model on ${o.device}` });
  let model: CausalLm;
  if (o.wasmPaths) await guardSessionChain();
  sessionFailures.length = 0;
  try {
    model = await tf.AutoModelForCausalLM.from_pretrained(s.repo, {
      ...common,
      config,
      dtype: o.dtype,
      device: o.device,
    });
  } catch (e) {
    const err = sessionFailures.shift() ?? e;
    return { ok: false, problem: classify(err, 'model', modelFile(err)) };
  }
  const failed = sessionFailures.shift();
  if (failed !== undefined) {
    await model.dispose().catch(() => undefined);
    return { ok: false, problem: classify(failed, 'model', modelFile(failed)) };
  }
  const loadMs = now() - t0;

  emit({ kind: 'stage', stage: 'warmup', message: 'warming up' });
  const w0 = now();
  let vocabSize: number;
  try {
    const inputs = tokenizer('warm up');
    const out = (await (model as unknown as (x: unknown) => Promise<{ logits: { dims: number[] } }>)(
      inputs,
    )) as {
      logits: { dims: number[] };
    };
    vocabSize = out.logits.dims.at(-1) ?? 0;
  } catch (e) {
    await model.dispose().catch(() => undefined);
    const msg = text(e);
    // A token id past the embedding's rows fails inside the graph (Gather): the tokenizer is wrong.
    if (/indices|out of range|out of bounds|Gather/i.test(msg))
      return {
        ok: false,
        problem: sentence('E_MODEL_TOKENIZER', `the model cannot read the tokenizer's ids (${msg})`),
      };
    return { ok: false, problem: classify(e, 'model', 'onnx') };
  }
  const wrong = tokenizerMismatch(tokenizerSize, vocabSize);
  if (wrong) {
    await model.dispose().catch(() => undefined);
    return { ok: false, problem: sentence('E_MODEL_TOKENIZER', wrong, 'tokenizer.json') };
  }
  const eos = (model.generation_config as unknown as { eos_token_id?: number | number[] | null } | null)
    ?.eos_token_id;
  const eosIds = (Array.isArray(eos) ? eos : eos == null ? [] : [eos]).filter((x) => Number.isInteger(x));
  if (eosIds.length === 0) {
    const fromConfig = (config as unknown as { eos_token_id?: number | number[] }).eos_token_id;
    eosIds.push(...(Array.isArray(fromConfig) ? fromConfig : fromConfig == null ? [] : [fromConfig]));
  }
  return {
    ok: true,
    lm: {
      tf,
      tokenizer,
      model,
      source: s,
      device: o.device,
      dtype: o.dtype,
      vocabSize,
      tokenizerSize,
      batonTiny:
        (config as unknown as { baton?: { format?: unknown } }).baton?.format === BATON_MODEL_FOLDER_FORMAT,
      eosIds,
      files: [...sizes].map(([file, bytes]) => ({ file, bytes })),
      loadMs,
      warmupMs: now() - w0,
    },
  };
}

/**
 * Downloads and reads the model manifest (`<base>models/manifest.json`): size-limited, parsed by
 * `parseManifest`; a missing or unreadable one is an `E_MODEL_MANIFEST` problem.
 */
export async function fetchManifest(
  url: string,
  fetchFn: typeof fetch = globalThis.fetch.bind(globalThis),
): Promise<Result<Manifest>> {
  const bad = (detail: string) =>
    fail({ code: 'E_MODEL_MANIFEST', message: describe('E_MODEL_MANIFEST', detail), path: url });
  let res: Response;
  try {
    res = await fetchFn(url);
  } catch (e) {
    return bad(`${url} could not be fetched (${text(e)})`);
  }
  if (!res.ok) return bad(`${url} answered HTTP ${res.status}`);
  const length = Number(res.headers.get('content-length'));
  if (length > MAX_MANIFEST_BYTES) return bad(`${url} is larger than ${MAX_MANIFEST_BYTES} bytes`);
  return parseManifest(await res.text());
}
