import type { ChatMessage } from '../core/trace.ts';
import {
  chatFormat,
  createOrchestratorRuntime,
  fetchManifest,
  type Constraint,
  type ConstraintContext,
  type DeviceProbe,
  type Manifest,
  type OrchestratorRuntime,
  type PromptFormatAdapter,
} from '../orchestrator/index.ts';
import type { Handlers } from './rpc/server.ts';
import type { OrchestratorMethods } from './orchestrator.methods.ts';

/**
 * What the orchestrator worker's methods do (served by orchestrator.worker.ts in a Web Worker and by
 * orchestrator.local.ts on a MessageChannel in tests). One runtime per worker; the manifest is
 * fetched from the page's base URL when first needed and kept.
 *
 * The base URL the page sends says where this build serves `models/` and onnxruntime-web's files
 * (`ort/`, copied there by vite.config.ts), so nothing is fetched from a CDN.
 */
export interface OrchestratorSessionDeps {
  probe: () => Promise<DeviceProbe>;
  /** Baton's orchestrator chat messages (src/interop `orchestratorMessages`). */
  chatMessages: (query: string, dom: 'low' | 'high') => ChatMessage[];
  /** The tiny format's adapter, where this build has it. */
  tiny?: PromptFormatAdapter;
  constraint?: (ctx: ConstraintContext) => Promise<Constraint> | Constraint;
  /** A macrotask, so messages (interrupt, cancel) arrive between tokens. */
  yieldEach: () => Promise<void>;
  fetch?: typeof fetch;
  /** Node (tests): where downloaded files are kept. */
  cacheDir?: string | null;
  /** Tests: the hub host hub ids resolve to (default huggingface.co). */
  hubHost?: string;
  /** onnxruntime-web's files under the base URL; null in Node (onnxruntime-node). */
  ortPath?: string | null;
}

/** onnxruntime-web's WebGPU+wasm build, as served by this app (vite.config.ts copies them to `ort/`). */
export const ORT_FILES = {
  mjs: 'ort-wasm-simd-threaded.asyncify.mjs',
  wasm: 'ort-wasm-simd-threaded.asyncify.wasm',
};

const SEP = '/';
const dirOf = (base: string, path: string): string =>
  new URL(path.endsWith(SEP) ? path : `${path}${SEP}`, base).href;

export function orchestratorHandlers(deps: OrchestratorSessionDeps): Handlers<OrchestratorMethods> {
  let runtime: OrchestratorRuntime | null = null;
  let runtimeBase = '';
  let runtimeManifest: Manifest | null = null;
  let manifest: { base: string; value: Manifest } | null = null;

  const getManifest = async (base: string) => {
    if (manifest?.base === base) return { ok: true as const, value: manifest.value, warnings: [] };
    const r = await fetchManifest(new URL('models/manifest.json', base).href, deps.fetch);
    if (r.ok) manifest = { base, value: r.value };
    return r;
  };

  /** The runtime for a base URL and its manifest; a new one (the old model dropped) when either changed. */
  const runtimeFor = async (base: string, m: Manifest | null): Promise<OrchestratorRuntime> => {
    if (runtime && runtimeBase === base && runtimeManifest === m) return runtime;
    await runtime?.dispose();
    const ort = deps.ortPath === null ? null : dirOf(base, deps.ortPath ?? 'ort/');
    runtime = createOrchestratorRuntime({
      manifest: m,
      resolve: { localRoot: dirOf(base, 'models/'), ...(deps.hubHost ? { hubHost: deps.hubHost } : {}) },
      probe: deps.probe,
      ...(ort ? { wasmPaths: { mjs: `${ort}${ORT_FILES.mjs}`, wasm: `${ort}${ORT_FILES.wasm}` } } : {}),
      ...(deps.cacheDir !== undefined ? { cacheDir: deps.cacheDir } : {}),
      ...(deps.fetch ? { fetch: deps.fetch } : {}),
      formats: { chat: chatFormat(deps.chatMessages), ...(deps.tiny ? { tiny: deps.tiny } : {}) },
      ...(deps.constraint ? { constraint: deps.constraint } : {}),
      yieldEach: deps.yieldEach,
    });
    runtimeBase = base;
    runtimeManifest = m;
    return runtime;
  };

  return {
    async manifest({ baseUrl }) {
      const r = await getManifest(baseUrl);
      if (!r.ok) {
        const p = r.errors[0];
        return {
          ok: false,
          problem: {
            code: 'E_MODEL_MANIFEST',
            message: p?.message ?? 'unreadable',
            ...(p?.path ? { path: p.path } : {}),
          },
        };
      }
      return {
        ok: true,
        default: r.value.default,
        models: r.value.models,
        warnings: r.warnings.map((w) => w.message),
      };
    },
    async load(input, { signal, progress }) {
      // A missing manifest does not stop a hub id or URL from loading; a manifest id then fails to resolve.
      const m = await getManifest(input.baseUrl);
      const rt = await runtimeFor(input.baseUrl, m.ok ? m.value : null);
      const r = await rt.load({
        model: input.model,
        device: input.device,
        dtype: input.dtype,
        useCache: input.useCache,
        signal,
        onEvent: (e) => progress(e),
      });
      if (!r.ok) return { ok: false, problem: r.problem };
      const { source: _source, ...model } = r.model;
      return { ok: true, ...model };
    },
    async generate(input, { signal, progress }) {
      if (!runtime)
        return {
          ok: false,
          problem: { code: 'E_MODEL_NOT_LOADED', message: 'No model is loaded: load a model first.' },
        };
      const r = await runtime.generate({
        query: input.query,
        dom: input.dom,
        constrained: input.constrained,
        temperature: input.temperature,
        seed: input.seed,
        ...(input.maxNewTokens !== undefined ? { maxNewTokens: input.maxNewTokens } : {}),
        signal,
        onText: (text, tokens) => {
          if (text) progress({ kind: 'text', text, tokens });
        },
      });
      if (!r.ok) return { ok: false, problem: r.problem };
      const { design, problem, designer, generation: g } = r.result;
      return {
        ok: true,
        rawOutput: g.rawOutput,
        design,
        ...(problem ? { problem } : {}),
        stopReason: g.stopReason,
        timings: {
          firstTokenMs: g.firstTokenMs,
          generateMs: g.generateMs,
          tokens: g.tokens,
          tokensPerSecond: g.tokensPerSecond,
        },
        promptTokens: g.promptTokens,
        designer,
      };
    },
    interrupt: () => ({ interrupted: runtime?.interrupt() ?? false }),
    async clearCache() {
      const rt = runtime ?? (await runtimeFor('http://localhost/', null));
      const r = await rt.clearCache();
      return r.ok ? { ok: true, deleted: r.deleted } : { ok: false, problem: r.problem };
    },
    async dispose() {
      return { disposed: (await runtime?.dispose()) ?? false };
    },
  };
}
