/**
 * What the training worker does for GRPO of the orchestrator LM, as RPC handlers over one trainer.
 * The trainer itself (src/train orchestrator-*.ts) is reached through `OrchTrainLib`
 * (train-orchestrator.lib.ts binds it), so these handlers hold only the session: the queue, pause,
 * storage, device-loss recovery and export.
 *
 * - Every piece of work runs through one queue, so `orchSave` asked for while an iteration runs
 *   answers with that iteration finished.
 * - `orchRun` yields to the event loop (a macrotask) before every iteration: that is when a
 *   `cancel` (the page's "pause") arrives; the iteration in flight finishes, no further one starts.
 * - After every finished iteration the worker keeps the trainer's checkpoint text in memory. When
 *   the WebGPU device is lost during an iteration, that iteration is dropped and the trainer is
 *   built again from the kept checkpoint on the best CPU-side backend (WebAssembly SIMD where the
 *   engine has it, else TypeScript): at most one iteration's work is lost, and a `recovered` report
 *   says so.
 * - The checkpoint goes to IndexedDB from the worker (`deps.storage`), never through the page.
 */
import type { BackendChoice } from '../gpu/index.ts';
import { TRAINED_MODELS_PATH } from '../orchestrator/index.ts';
import { backendAfterLoss, deviceWasLost } from './device-loss.ts';
import type { Handlers } from './rpc/server.ts';
import type { OutputIn } from './rpc/protocol.ts';
import type {
  OrchConfigInput,
  OrchEvaluation,
  OrchMetrics,
  OrchRunInfo,
  OrchSampled,
  OrchTrainMethods,
} from './train-orchestrator.methods.ts';
import type { ChooseBackend } from './train.session.ts';

/** The files of a model folder the trainer reads (config, tokenizer, the fp32 ONNX file). */
export interface OrchFolderFiles {
  config: string;
  tokenizer: string;
  tokenizerConfig: string;
  onnx: Uint8Array;
}

/** The SFT model as the lib loaded it. */
export interface OrchModelHandle {
  name: string;
  params: number;
  positions: number;
  /** The design text format it writes (`tiny`, `tiny2`). */
  promptFormat?: string;
}

/** One trainer, as the session drives it. */
export interface OrchTrainerPort {
  readonly iteration: number;
  readonly history: readonly OrchMetrics[];
  iterate(): Promise<OrchMetrics>;
  /** The last iteration's designs. */
  sampled(): OrchSampled[];
  /** The whole state as `baton.orchestrator-grpo/1` JSON. */
  checkpointText(): Promise<string>;
  /** Held-out before (SFT) / after (current) on the same queries. */
  evaluate(tasks: number): Promise<Omit<OrchEvaluation, 'iteration' | 'tasks'>>;
  /** The current weights as a model folder (path → contents). */
  folder(meta: { name: string; iteration: number }): Map<string, Uint8Array | string>;
  dispose(): void;
}

/** The trainer's library (src/train), bound in train-orchestrator.lib.ts. */
export interface OrchTrainLib {
  readModel(files: OrchFolderFiles): OrchModelHandle;
  /** A trainer on `choice`: fresh from the model, or continuing a checkpoint (its config wins). */
  create(o: {
    model: OrchModelHandle;
    config: OrchConfigInput;
    choice: BackendChoice;
    checkpoint?: string;
  }): Promise<OrchTrainerPort>;
  /** What a checkpoint holds, checked (throws with the problems when it is not usable). */
  runInfo(checkpoint: string): OrchRunInfo;
}

/** Where the checkpoint is kept (the worker: IndexedDB). */
export interface OrchCheckpointStore {
  load(): Promise<string | null>;
  save(text: string): Promise<void>;
  clear(): Promise<void>;
}

/** Where exported model folders are kept (the worker: Cache Storage, read by the orchestrator worker). */
export type PutModelFolder = (folderUrl: string, files: Map<string, Uint8Array | string>) => Promise<void>;

export interface OrchSessionDeps {
  lib: OrchTrainLib;
  choose: ChooseBackend;
  /** Reads a model folder's files (a URL ending in `/`). */
  readFolder: (folderUrl: string) => Promise<OrchFolderFiles>;
  store?: OrchCheckpointStore;
  putFolder?: PutModelFolder;
  /** ms, for iteration times. */
  now?: () => number;
  /** Sampled designs sent per iteration (the page draws them). */
  maxSampled?: number;
}

/** Where the worker keeps the run's checkpoint (`baton.orchestrator-grpo/1` JSON, as a Blob). */
export const ORCH_CHECKPOINT_IDB = {
  db: 'baton-train-orchestrator',
  store: 'checkpoints',
  key: 'latest',
} as const;

const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

const disposeChoice = (c: BackendChoice): void => {
  try {
    c.ctx?.dispose();
  } catch {
    // A device already lost or destroyed has nothing left to release.
  }
};

interface Session {
  trainer: OrchTrainerPort;
  model: OrchModelHandle;
  modelId: string;
  choice: BackendChoice;
  /** Checkpoint after the last finished iteration (what device loss resumes from). */
  last: string;
  lost: string | null;
  /** Test hook: iterations left before the device is destroyed (null = not armed). */
  loseAfter: number | null;
}

export function orchTrainHandlers(deps: OrchSessionDeps): Handlers<OrchTrainMethods> {
  const now = deps.now ?? (() => performance.now());
  const maxSampled = deps.maxSampled ?? 8;
  let session: Session | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };
  const need = (): Session => {
    if (!session) throw new Error('no orchestrator training run: start one first');
    return session;
  };
  const drop = (): void => {
    if (!session) return;
    session.trainer.dispose();
    disposeChoice(session.choice);
    session = null;
  };
  const info = (s: Session): OrchRunInfo => deps.lib.runInfo(s.last);

  const store = async (s: Session): Promise<{ stored: boolean; error?: string }> => {
    if (!deps.store) return { stored: false, error: 'no storage in this context' };
    try {
      await deps.store.save(s.last);
      return { stored: true };
    } catch (e) {
      return { stored: false, error: (e instanceof Error ? e.message : String(e)).slice(0, 2000) };
    }
  };

  /** Whether the device was lost (device-loss.ts; a failed iteration waits for the `lost` event). */
  const wasLost = (s: Session, failed: boolean): Promise<boolean> =>
    deviceWasLost(s.choice, () => s.lost !== null || s.choice.ctx?.lost === true, failed);

  type Step =
    | { kind: 'iteration'; metrics: OrchMetrics; sampled: OrchSampled[]; ms: number }
    | { kind: 'recovered'; message: string };

  const iterate = async (): Promise<Step> => {
    const s = need();
    if (s.loseAfter !== null) {
      if (s.loseAfter > 0) s.loseAfter -= 1;
      else {
        s.loseAfter = null;
        s.choice.ctx?.device.destroy();
      }
    }
    const t0 = now();
    let failure: unknown = null;
    let metrics: OrchMetrics | null = null;
    let last: string | null = null;
    try {
      metrics = await s.trainer.iterate();
      // Inside the loss check: a device lost late in the iteration may fail only this read.
      last = await s.trainer.checkpointText();
    } catch (e) {
      failure = e;
    }
    if (await wasLost(s, failure !== null)) {
      const message = s.lost ?? (failure instanceof Error ? failure.message : 'device lost');
      s.trainer.dispose();
      disposeChoice(s.choice);
      const choice = await backendAfterLoss(deps.choose, message);
      const trainer = await deps.lib.create({ model: s.model, config: {}, choice, checkpoint: s.last });
      session = { ...s, trainer, choice, lost: null, loseAfter: null };
      return { kind: 'recovered', message };
    }
    if (failure !== null || metrics === null || last === null) throw failure;
    s.last = last;
    return { kind: 'iteration', metrics, sampled: s.trainer.sampled().slice(0, maxSampled), ms: now() - t0 };
  };

  return {
    orchStart: ({ baseUrl, folder, config, resume, backend }) =>
      serial(async () => {
        drop();
        const model = deps.lib.readModel(await deps.readFolder(new URL(`models/${folder}/`, baseUrl).href));
        let checkpoint: string | undefined;
        if (resume) {
          const saved = (await deps.store?.load()) ?? null;
          if (saved === null) throw new Error('no orchestrator run is saved in this browser');
          checkpoint = saved;
        }
        const holder: { s: Session | null } = { s: null };
        const choice = await deps.choose(backend, (message) => {
          if (holder.s) holder.s.lost = message;
        });
        try {
          const trainer = await deps.lib.create({
            model,
            config,
            choice,
            ...(checkpoint ? { checkpoint } : {}),
          });
          const s: Session = {
            trainer,
            model,
            modelId: folder,
            choice,
            last: checkpoint ?? (await trainer.checkpointText()),
            lost: null,
            loseAfter: null,
          };
          holder.s = s;
          session = s;
          return {
            backend: choice.backend,
            reason: choice.reason,
            run: info(s) as OutputIn<OrchTrainMethods['orchStart']>['run'],
            model: {
              id: folder,
              name: model.name,
              params: model.params,
              positions: model.positions,
              ...(model.promptFormat ? { promptFormat: model.promptFormat } : {}),
            },
          };
        } catch (e) {
          disposeChoice(choice);
          throw e;
        }
      }),

    async orchRun({ iterations, snapshotEvery }, { signal, progress }) {
      need();
      for (let i = 0; i < iterations; i++) {
        await macrotask();
        if (signal.aborted) break;
        const step = await serial(iterate);
        const s = need();
        if (step.kind === 'recovered') {
          progress({
            kind: 'recovered',
            iteration: s.trainer.iteration,
            message: step.message,
            backend: { backend: s.choice.backend, reason: s.choice.reason },
          });
          i -= 1;
          continue;
        }
        progress({ kind: 'iteration', metrics: step.metrics, sampled: step.sampled, ms: step.ms });
        if (s.trainer.iteration % snapshotEvery === 0 || i === iterations - 1) {
          const r = await serial(() => store(s));
          progress({ kind: 'snapshot', iteration: s.trainer.iteration, ...r });
        }
      }
      const s = need();
      return {
        iteration: s.trainer.iteration,
        backend: { backend: s.choice.backend, reason: s.choice.reason },
      };
    },

    orchSave: () =>
      serial(async () => {
        const s = need();
        const r = await store(s);
        if (!r.stored) throw new Error(`the checkpoint could not be stored: ${r.error ?? 'unknown'}`);
        return info(s) as OutputIn<OrchTrainMethods['orchSave']>;
      }),

    orchSaved: () =>
      serial(async () => {
        const saved = (await deps.store?.load()) ?? null;
        return saved === null ? null : (deps.lib.runInfo(saved) as OutputIn<OrchTrainMethods['orchSaved']>);
      }),

    orchForget: () =>
      serial(async () => {
        await deps.store?.clear();
        return {};
      }),

    orchEvaluate: ({ tasks }, { progress }) =>
      serial(async () => {
        const s = need();
        progress({ done: 0, total: 1 });
        const r = await s.trainer.evaluate(tasks);
        progress({ done: 1, total: 1 });
        return { ...r, iteration: s.trainer.iteration, tasks };
      }),

    orchExport: ({ baseUrl }) =>
      serial(async () => {
        const s = need();
        if (!deps.putFolder) throw new Error('this context cannot keep a model folder');
        const it = s.trainer.iteration;
        const id = `${s.modelId}-grpo-${it}-${Date.now().toString(36)}`.slice(0, 80);
        const files = s.trainer.folder({ name: id, iteration: it });
        const url = new URL(`${TRAINED_MODELS_PATH}${id}/`, baseUrl).href;
        await deps.putFolder(url, files);
        return {
          id,
          url,
          iteration: it,
          files: [...files].map(([file, v]) => ({
            file,
            bytes: typeof v === 'string' ? new TextEncoder().encode(v).length : v.length,
          })),
        };
      }),

    orchReset: () =>
      serial(async () => {
        drop();
        await deps.store?.clear();
        return {};
      }),

    orchLoseDevice: ({ afterIterations }) =>
      serial((): Promise<{ armed: boolean }> => {
        const s = session;
        if (!s || !s.choice.ctx) return Promise.resolve({ armed: false });
        if (afterIterations === 0) s.choice.ctx.device.destroy();
        else s.loseAfter = afterIterations;
        return Promise.resolve({ armed: true });
      }),
  };
}
