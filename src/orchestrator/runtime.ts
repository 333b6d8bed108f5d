/**
 * The orchestrator runtime: one model at a time, from a name to a checked design. It strings the
 * pieces together (resolve the name in the manifest, choose device and dtype, load, generate, read
 * the design) and is what both the orchestrator worker (src/workers/orchestrator.*) and
 * `baton orchestrate` run, so the page and the CLI load and decode the same way.
 *
 * What differs between them is injected: how to probe the device, where local models and
 * onnxruntime-web's files are, the chat messages for a query (Baton's orchestrator prompt lives in
 * src/interop, a floor this layer does not read) and the constrained-decoding processor.
 */
import { describe } from '../core/errors.ts';
import { clearModelCache } from './cache.ts';
import { designOutcome, type DesignResult, type DomChoice } from './designer.ts';
import { designConstraint, positionsOf, tinyFormat, type PromptFormatAdapter } from './formats.ts';
import { chooseDevice, type Device, type DevicePreference, type DeviceProbe } from './device.ts';
import { generate, promptText, type Generation, type Prompt } from './generate.ts';
import { loadModel, type LoadEvent, type LoadedLm, type Transformers } from './load.ts';
import {
  resolveModel,
  type Dtype,
  type Manifest,
  type ModelEntry,
  type ModelSource,
  type ResolveOptions,
} from './manifest.ts';

export type RuntimeErrorCode =
  | 'E_MODEL_SPEC'
  | 'E_MODEL_NOT_FOUND'
  | 'E_MODEL_NETWORK'
  | 'E_MODEL_FILE'
  | 'E_MODEL_TOKENIZER'
  | 'E_MODEL_DEVICE'
  | 'E_MODEL_NOT_LOADED'
  | 'E_MODEL_BUSY'
  | 'E_MODEL_GENERATE'
  | 'E_MODEL_CACHE';

export interface RuntimeProblem {
  code: RuntimeErrorCode;
  message: string;
  path?: string;
}

export type Outcome<T> = ({ ok: true } & T) | { ok: false; problem: RuntimeProblem };

const problem = (
  code: RuntimeErrorCode,
  detail: string,
  path?: string,
): { ok: false; problem: RuntimeProblem } => ({
  ok: false,
  problem: { code, message: describe(code, detail), ...(path ? { path } : {}) },
});

/** A constrained-decoding processor for one generation, and its counts when it is done. */
export interface Constraint {
  processors: unknown[];
  stats(): Record<string, number>;
}

export interface ConstraintContext {
  tf: Transformers;
  lm: LoadedLm;
  dom: DomChoice;
  entry: ModelEntry | null;
  promptFormat: 'chat' | 'tiny';
  /** Tokens the answer may take. */
  maxNewTokens: number;
}

export interface RuntimeDeps {
  manifest: Manifest | null;
  resolve: ResolveOptions;
  probe: () => Promise<DeviceProbe>;
  wasmPaths?: { mjs: string; wasm: string };
  /** Node: where downloaded files are kept. */
  cacheDir?: string | null;
  fetch?: typeof fetch;
  /**
   * How each prompt format asks and reads: `chat` from Baton's orchestrator messages
   * (`chatFormat(orchestratorMessages)`, src/interop, a floor this layer does not read); `tiny`
   * defaults to `tinyFormat()` over the built-in role pool.
   */
  formats: Partial<Record<'chat' | 'tiny', PromptFormatAdapter>>;
  /** Builds constrained decoding for a generation (default `designConstraint`, the project's). */
  constraint?: (ctx: ConstraintContext) => Promise<Constraint> | Constraint;
  /** Awaited before each forward pass (a macrotask, so a worker hears "interrupt"). */
  yieldEach?: () => Promise<void>;
}

export interface LoadRequest {
  model: string;
  device: DevicePreference;
  dtype: Dtype | 'auto';
  useCache?: boolean;
  onEvent?: (e: LoadEvent) => void;
  signal?: AbortSignal;
}

export interface Loaded {
  id: string;
  label: string;
  entry: ModelEntry | null;
  source: ModelSource;
  dtype: Dtype;
  device: Device;
  deviceReason: string;
  promptFormat: 'chat' | 'tiny';
  vocabSize: number;
  files: { file: string; bytes: number }[];
  loadMs: number;
  warmupMs: number;
}

export interface GenerateRequest {
  query: string;
  dom: DomChoice;
  constrained: boolean;
  temperature: number;
  seed: number;
  maxNewTokens?: number;
  onText?: (delta: string, tokens: number) => void;
  signal?: AbortSignal;
}

export type Designed = DesignResult & { generation: Generation };

export interface OrchestratorRuntime {
  load(r: LoadRequest): Promise<Outcome<{ model: Loaded }>>;
  generate(r: GenerateRequest): Promise<Outcome<{ result: Designed }>>;
  /** Stops the generation in flight at its next token; false when none runs. */
  interrupt(): boolean;
  clearCache(): Promise<Outcome<{ deleted: number }>>;
  dispose(): Promise<boolean>;
  readonly loaded: Loaded | null;
}

/** Tokens in a prompt (ids counted, text tokenized). */
function promptLength(prompt: Prompt, lm: LoadedLm): number {
  if (prompt.kind === 'ids') return prompt.ids.length;
  return lm.tokenizer.encode(promptText(lm, prompt)).length;
}

export function createOrchestratorRuntime(deps: RuntimeDeps): OrchestratorRuntime {
  let held: { lm: LoadedLm; info: Loaded } | null = null;
  let loading = false;
  let running: AbortController | null = null;

  const drop = async (): Promise<boolean> => {
    const h = held;
    held = null;
    if (!h) return false;
    await h.lm.model.dispose().catch(() => undefined);
    return true;
  };

  return {
    get loaded() {
      return held?.info ?? null;
    },
    async load(r) {
      if (loading || running)
        return problem('E_MODEL_BUSY', loading ? 'a model is loading' : 'a design is being written');
      const source = resolveModel(r.model, deps.manifest, deps.resolve);
      if (!source.ok) return { ok: false, problem: source.errors[0] as RuntimeProblem };
      const entry = source.value.entry;
      const inManifest = !!entry && !!deps.manifest?.models.includes(entry);
      const dtypes = entry?.dtypes ?? ['q4', 'q8', 'fp32'];
      const probe = await deps.probe();
      const choice = chooseDevice(r.device, dtypes, r.dtype, probe);
      if (!choice.ok) return problem('E_MODEL_DEVICE', choice.message);
      // A model typed in does not say which dtypes it has: with `auto`, each dtype the device suits
      // is tried in turn while its ONNX file is missing.
      const tries: Dtype[] = [choice.dtype];
      if (!inManifest && r.dtype === 'auto')
        for (const d of dtypes) {
          const c = chooseDevice(choice.device, dtypes, d, probe);
          if (c.ok && !tries.includes(d)) tries.push(d);
        }
      loading = true;
      try {
        await drop();
        let dtype = choice.dtype;
        let loadedLm: Awaited<ReturnType<typeof loadModel>> | null = null;
        for (const d of tries) {
          dtype = d;
          loadedLm = await loadModel({
            source: source.value,
            device: choice.device,
            dtype: d,
            ...(deps.wasmPaths ? { wasmPaths: deps.wasmPaths } : {}),
            useBrowserCache: r.useCache ?? true,
            cacheDir: deps.cacheDir ?? null,
            ...(r.onEvent ? { onEvent: r.onEvent } : {}),
            ...(r.signal ? { signal: r.signal } : {}),
            ...(deps.fetch ? { fetch: deps.fetch } : {}),
          });
          const missingOnnx =
            !loadedLm.ok &&
            loadedLm.problem.code === 'E_MODEL_NOT_FOUND' &&
            loadedLm.problem.path?.startsWith('onnx/');
          if (!missingOnnx) break;
        }
        if (!loadedLm) return problem('E_MODEL_DEVICE', 'no dtype to load');
        if (!loadedLm.ok) return { ok: false, problem: loadedLm.problem };
        const lm = loadedLm.lm;
        const info: Loaded = {
          id: inManifest && entry ? entry.id : r.model.trim(),
          label: entry?.label ?? r.model.trim(),
          entry,
          source: source.value,
          dtype,
          device: choice.device,
          deviceReason:
            dtype === choice.dtype
              ? choice.reason
              : `${choice.reason}; ${dtype}, the first dtype the model has`,
          // A manifest entry says its format; a model typed in is `tiny` when it is one of ours.
          promptFormat: inManifest ? (entry?.promptFormat ?? 'chat') : lm.batonTiny ? 'tiny' : 'chat',
          vocabSize: lm.vocabSize,
          files: lm.files,
          loadMs: lm.loadMs,
          warmupMs: lm.warmupMs,
        };
        held = { lm, info };
        return { ok: true, model: info };
      } finally {
        loading = false;
      }
    },
    async generate(r) {
      if (!held) return problem('E_MODEL_NOT_LOADED', 'load a model first');
      if (running || loading)
        return problem('E_MODEL_BUSY', running ? 'a design is being written' : 'a model is loading');
      const { lm, info } = held;
      const format = info.promptFormat === 'tiny' ? (deps.formats.tiny ?? tinyFormat()) : deps.formats.chat;
      if (!format)
        return problem('E_MODEL_GENERATE', `this build cannot prompt the ${info.promptFormat} format`);
      const positions = positionsOf(lm);
      let maxNewTokens = r.maxNewTokens ?? info.entry?.maxNewTokens ?? 1024;
      if (positions !== null) maxNewTokens = Math.min(maxNewTokens, Math.max(1, positions - 8));
      let prompt;
      try {
        prompt = format.prompt(r.query, r.dom, lm, maxNewTokens);
      } catch (e) {
        return problem(
          'E_MODEL_TOKENIZER',
          `the prompt could not be written: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      // The model reads at most `positions` tokens: the answer gets what the prompt leaves.
      const answerTokens =
        positions === null
          ? maxNewTokens
          : Math.max(1, Math.min(maxNewTokens, positions - promptLength(prompt, lm)));
      let constraint: Constraint | null = null;
      if (r.constrained) {
        try {
          constraint = await (deps.constraint ?? designConstraint)({
            tf: lm.tf,
            lm,
            dom: r.dom,
            entry: info.entry,
            promptFormat: info.promptFormat,
            maxNewTokens: answerTokens,
          });
        } catch (e) {
          return problem(
            'E_MODEL_GENERATE',
            `constrained decoding could not start: ${e instanceof Error ? e.message : String(e)}`,
          );
        }
      }
      const controller = new AbortController();
      running = controller;
      const onAbort = (): void => controller.abort();
      r.signal?.addEventListener('abort', onAbort, { once: true });
      if (r.signal?.aborted) controller.abort();
      try {
        const g = await generate(lm, {
          prompt,
          temperature: r.temperature,
          seed: r.seed,
          maxNewTokens: answerTokens,
          ...(constraint ? { logitsProcessors: () => (constraint as Constraint).processors } : {}),
          ...(r.onText ? { onText: r.onText } : {}),
          signal: controller.signal,
          ...(deps.yieldEach ? { yieldEach: deps.yieldEach } : {}),
        });
        const outcome = designOutcome(g, format.read(g.rawOutput, r.dom), {
          model: info.id,
          dtype: info.dtype,
          device: info.device,
          deviceReason: info.deviceReason,
          promptFormat: info.promptFormat,
          dom: r.dom,
          constrained: r.constrained,
          temperature: r.temperature,
          seed: r.seed,
          loadMs: info.loadMs,
          ...(constraint ? { constraint: constraint.stats() } : {}),
        });
        return { ok: true, result: { ...outcome, generation: g } };
      } catch (e) {
        return problem('E_MODEL_GENERATE', e instanceof Error ? e.message : String(e));
      } finally {
        running = null;
        r.signal?.removeEventListener('abort', onAbort);
      }
    },
    interrupt() {
      if (!running) return false;
      running.abort();
      return true;
    },
    async clearCache() {
      try {
        return { ok: true, deleted: await clearModelCache() };
      } catch (e) {
        return problem('E_MODEL_CACHE', e instanceof Error ? e.message : String(e));
      }
    },
    dispose: drop,
  };
}
