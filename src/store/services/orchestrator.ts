/**
 * The Orchestrate page's effects: the in-tab orchestrator, which lives in a Web Worker
 * (src/workers/orchestrator.*: the model manifest, loading with per-file progress, generation with
 * streamed text, interrupt, clearing the browser's model cache). The slice sees only
 * `OrchestratorRuntime`: plain requests in, `Result`s out, progress through callbacks, so nothing
 * of transformers.js or onnxruntime enters the page's chunks (they load in the worker), and store
 * tests swap the runtime (`configureOrchestratorRuntime`). Everything the worker answers was
 * parsed by the RPC's schemas on arrival.
 */
import type { Result } from '../../core/result.ts';
import type { Designer, Design } from '../../core/trace.ts';
import type { Problem } from '../../core/result.ts';
import { ok } from '../../core/result.ts';
import { createOrchestratorWorkerClient, type OrchestratorWorkerClient } from '../../workers/index.ts';

export type DevicePref = 'auto' | 'webgpu' | 'wasm';
export type DomPref = 'low' | 'high' | 'auto';

/** A model the user can pick, as the manifest describes it. */
export interface ModelEntryView {
  id: string;
  label: string;
  /** `offline`: served with this site (works without a network); `hub`: downloaded from the hub. */
  source: 'offline' | 'hub';
  /** Download size of each dtype, MB, where the manifest says. */
  sizeMB: Partial<Record<string, number>>;
  /** Best first. */
  dtypes: string[];
  license: string;
  expectedSpeed: string | null;
  paramsM: number;
  description: string | null;
}

export interface ModelList {
  defaultId: string;
  entries: ModelEntryView[];
  /** One line per manifest entry left out, saying why. */
  warnings: string[];
}

export interface LoadRequest {
  /** A manifest id, a hub id (`owner/name`) or a model folder URL. */
  model: string;
  device: DevicePref;
  /** 'auto' = the first the model offers that suits the device. */
  dtype: string;
}

/** One file's download (or cache read), as the worker reports it. */
export interface FileProgress {
  file: string;
  loaded: number;
  /** Null while the server has not said. */
  total: number | null;
  done: boolean;
}

export type LoadEvent = { kind: 'file'; file: FileProgress } | { kind: 'stage'; message: string };

export interface LoadedModel {
  id: string;
  label: string;
  dtype: string;
  device: 'webgpu' | 'wasm' | 'cpu';
  /** Why this device and dtype: asked for, or chosen ("no WebGPU adapter: wasm"). */
  deviceReason: string;
  loadMs: number;
  warmupMs: number;
  vocabSize: number;
}

export interface GenerateRequest {
  query: string;
  dom: DomPref;
  temperature: number;
  seed: number;
  constrained: boolean;
}

/** What streams in while the model writes. */
export interface GenerateProgress {
  /** The text added since the last report. */
  delta: string;
  tokens: number;
}

export interface GenerationResult {
  rawOutput: string;
  /** The validated design; null when the output does not parse or breaks a rule (`problem`). */
  design: Design | null;
  problem: Problem | null;
  stopReason: 'eos' | 'max-tokens' | 'interrupted';
  timings: { firstTokenMs: number; generateMs: number; tokens: number; tokensPerSecond: number };
  /** The trace's designer record (kind `orchestrator`): model, dtype, device, prompt, statistics. */
  designer: Designer;
}

export interface RuntimeCallOptions<P> {
  signal?: AbortSignal;
  onProgress?: (p: P) => void;
}

export interface OrchestratorRuntime {
  manifest(): Promise<Result<ModelList>>;
  load(req: LoadRequest, options?: RuntimeCallOptions<LoadEvent>): Promise<Result<LoadedModel>>;
  /** Answers when the generation ends, interrupted or not, with what was written. */
  generate(
    req: GenerateRequest,
    options?: RuntimeCallOptions<GenerateProgress>,
  ): Promise<Result<GenerationResult>>;
  /** Stops the generation in flight at the next token; its `generate` answers with what was written. */
  interrupt(): Promise<void>;
  /** Deletes the cached model files; how many went. */
  clearCache(): Promise<Result<{ removed: number }>>;
}

/** The page's base URL: where `models/` and onnxruntime-web's files are served. */
function pageBase(): string {
  return new URL('.', location.href).href;
}

/**
 * The runtime over the worker client. A load that fails ends that worker and the next call starts
 * a fresh one: a model file that onnxruntime could not read can leave the worker's wasm runtime
 * unable to read the next, good one (seen in Chromium: after a truncated file, a whole one failed
 * with the same protobuf error until the worker was replaced). The failed load held no model, so
 * nothing is lost; the browser's cache of downloaded files is not the worker's and stays.
 */
export function workerRuntime(
  makeClient: () => OrchestratorWorkerClient,
  base: () => string = pageBase,
): OrchestratorRuntime {
  let held: OrchestratorWorkerClient | null = null;
  const client = (): OrchestratorWorkerClient => (held ??= makeClient());
  return {
    async manifest() {
      const r = await client().manifest(base());
      if (!r.ok) return r;
      return ok({
        defaultId: r.value.default,
        warnings: r.value.warnings,
        entries: r.value.models.map((m) => ({
          id: m.id,
          label: m.label,
          source: m.source.kind === 'local' ? 'offline' : 'hub',
          sizeMB: { ...m.sizeMB },
          dtypes: [...m.dtypes],
          license: m.license,
          expectedSpeed: m.expectedSpeed ?? null,
          paramsM: m.paramsM,
          description: m.description ?? null,
        })),
      });
    },
    async load(req, options = {}) {
      const r = await client().load(
        {
          model: req.model,
          device: req.device,
          dtype: req.dtype as 'auto',
          baseUrl: base(),
          useCache: true,
        },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          onProgress: (p) =>
            options.onProgress?.(
              p.kind === 'file'
                ? {
                    kind: 'file',
                    file: {
                      file: p.file,
                      loaded: p.loaded,
                      total: p.total > 0 ? p.total : null,
                      done: p.status === 'done',
                    },
                  }
                : { kind: 'stage', message: p.message },
            ),
        },
      );
      if (!r.ok) {
        held?.dispose();
        held = null;
        return r;
      }
      const m = r.value;
      return ok({
        id: m.id,
        label: m.label,
        dtype: m.dtype,
        device: m.device,
        deviceReason: m.deviceReason,
        loadMs: m.loadMs,
        warmupMs: m.warmupMs,
        vocabSize: m.vocabSize,
      });
    },
    async generate(req, options = {}) {
      const r = await client().generate(
        {
          query: req.query,
          dom: req.dom,
          constrained: req.constrained,
          temperature: req.temperature,
          seed: req.seed,
        },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          onProgress: (p) => options.onProgress?.({ delta: p.text, tokens: p.tokens }),
        },
      );
      if (!r.ok) return r;
      const g = r.value;
      return ok({
        rawOutput: g.rawOutput,
        design: g.design,
        problem: g.problem ?? null,
        stopReason: g.stopReason,
        timings: g.timings,
        designer: g.designer,
      });
    },
    async interrupt() {
      await held?.interrupt();
    },
    async clearCache() {
      const r = await client().clearCache();
      return r.ok ? ok({ removed: r.value.deleted }) : r;
    },
  };
}

let runtime: OrchestratorRuntime | null = null;

/** The one orchestrator runtime; its worker starts on first use. */
export function orchestratorRuntime(): OrchestratorRuntime {
  return (runtime ??= workerRuntime(() => createOrchestratorWorkerClient()));
}

/** Swaps the runtime (tests); returns the previous one. */
export function configureOrchestratorRuntime(next: OrchestratorRuntime | null): OrchestratorRuntime | null {
  const prev = runtime;
  runtime = next;
  return prev;
}
