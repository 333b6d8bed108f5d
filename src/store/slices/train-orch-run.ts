/**
 * What the Train page's orchestrator mode does (the actions of train-orch.ts, loaded with the mode).
 * The run lives in the training worker (src/workers/train-orchestrator.session.ts), which stores its
 * checkpoint in IndexedDB itself; this module calls it and records what it reports:
 *
 * - Start builds a trainer from the SFT model the form picks (one of the manifest's offline models,
 *   read from this build's models/ folder as the Orchestrate page reads it) and runs to the form's
 *   iteration count. Resuming continues the run's own model, whatever the form picks now.
 * - Pause cancels the run call (the iteration in flight finishes in the worker) and stores the
 *   checkpoint; after a reload the saved run is shown paused, and Resume rebuilds the trainer from it.
 * - A lost WebGPU device is reported by the worker, which continues on the CPU from the last
 *   finished iteration.
 * - The offline SFT models a run can start from, with the settings that suit each
 *   (`ORCH_SFT_MODELS`), and the run file of "Download metrics" (`orchRunFile`) live here too.
 * - "Use in Orchestrate" exports the current weights as a model folder (fp32, q8, q4) kept in Cache
 *   Storage, and points the Orchestrate page's model at it.
 */
import { problemOf } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';
import { orchTrainEnv, type OrchProgress, type OrchRunInfo } from '../services/train-orchestrator.ts';
import type { BatonState } from '../store.ts';
import { buildEnv } from './build-env.ts';
import { IDLE_ORCH_TRAIN, type OrchForm, type OrchTrainState } from './train-orch.ts';

/**
 * The offline SFT models a run can start from (the manifest's local orchestrator folders under
 * models/), each with the settings that suit it: v1 was trained on axis values 2–6 and writes
 * short designs; v2 reads the whole query, was trained on values 2–12, and its designs (plan
 * included) reach 372 tokens; v2 1 M is the same format and data on a 1.05 M-parameter model.
 */
export const ORCH_SFT_MODELS = [
  {
    id: 'baton-orchestrator-tiny',
    label: 'v1 · baton-orchestrator-tiny (role picker, last 64 query tokens)',
    maxNewTokens: 256,
    values: [2, 3, 4, 5, 6],
  },
  {
    id: 'baton-orchestrator-tiny-v2',
    label: 'v2 · baton-orchestrator-tiny-v2 (whole query, states its plan)',
    maxNewTokens: 448,
    values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  },
  {
    id: 'baton-orchestrator-v2-1m',
    label: 'v2 1 M · baton-orchestrator-v2-1m (the v2 data on a 4.6× larger model)',
    maxNewTokens: 448,
    values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  },
] as const;
export type OrchSftModelId = (typeof ORCH_SFT_MODELS)[number]['id'];

/** The form with `id` as its SFT model and that model's design-length and axis-value settings. */
export function withOrchModel(form: OrchForm, id: OrchSftModelId): OrchForm {
  const m = ORCH_SFT_MODELS.find((x) => x.id === id) ?? ORCH_SFT_MODELS[0];
  return { ...form, sftModel: m.id, maxNewTokens: m.maxNewTokens, values: [...m.values] };
}

export const isOrchSftModel = (id: unknown): id is OrchSftModelId => ORCH_SFT_MODELS.some((m) => m.id === id);

/**
 * The run as a JSON file a user can keep or plot elsewhere: the SFT model, the backend and why, the
 * form's settings, every iteration's metrics (what the charts draw) and the latest held-out
 * before/after evaluation. Null before the first iteration.
 */
export function orchRunFile(form: OrchForm, t: OrchTrainState): { name: string; text: string } | null {
  if (t.history.length === 0) return null;
  const model = t.model?.id ?? form.sftModel;
  const body = {
    format: 'baton.orchestrator-run/1',
    model: t.model ?? { id: model },
    backend: t.backend,
    settings: form,
    iteration: t.iteration,
    history: t.history,
    evaluation: t.evaluation,
  };
  return { name: `${model}-grpo-${t.iteration}.metrics.json`, text: JSON.stringify(body, null, 2) };
}

type Set = (partial: Partial<BatonState>) => void;
type Get = () => BatonState;

/** Most iterations the charts keep (the oldest are dropped). */
const MAX_HISTORY = 5000;

/** Aborting it pauses the run in flight. */
let running: AbortController | null = null;
let loop: Promise<void> | null = null;
/** The worker holds the run shown. */
let live = false;

const patch = (set: Set, get: Get, p: Partial<OrchTrainState>): void =>
  set({ orchTrain: { ...get().orchTrain, ...p } });

const workerProblems = (errors: readonly Problem[]): Problem[] =>
  errors.map((e) => problemOf('E_TRAIN_WORKER', e.message));

const fail = (set: Set, get: Get, errors: readonly Problem[], status?: OrchTrainState['status']): void =>
  patch(set, get, { problems: workerProblems(errors), ...(status ? { status } : {}) });

const shown = (info: OrchRunInfo): Partial<OrchTrainState> => ({
  iteration: info.iteration,
  history: info.history.slice(-MAX_HISTORY),
  config: info.config,
});

function onProgress(set: Set, get: Get): (p: OrchProgress) => void {
  return (p) => {
    const s = get().orchTrain;
    if (p.kind === 'iteration') {
      const history = [...s.history, p.metrics];
      patch(set, get, {
        iteration: p.metrics.iteration,
        history: history.length > MAX_HISTORY ? history.slice(-MAX_HISTORY) : history,
        sampled: p.sampled,
      });
    } else if (p.kind === 'snapshot') {
      if (p.stored) patch(set, get, { savedAt: p.iteration });
      else
        patch(set, get, {
          problems: [problemOf('E_TRAIN_STORAGE', p.error ?? 'the checkpoint could not be stored')],
        });
    } else
      patch(set, get, {
        backend: p.backend,
        iteration: p.iteration,
        notices: [
          ...s.notices,
          `The WebGPU device was lost during iteration ${p.iteration + 1} (${p.message}). Training resumed on the ${p.backend.backend === 'wasm' ? 'WebAssembly SIMD' : p.backend.backend === 'cpu' ? 'CPU (TypeScript)' : p.backend.backend} backend from iteration ${p.iteration}; that iteration is being run again.`,
        ],
      });
  };
}

/** Runs until the form's iteration count (at least one more); resolves when done or paused. */
function runTo(set: Set, get: Get, iterations: number): Promise<void> {
  const controller = new AbortController();
  running = controller;
  patch(set, get, { status: 'running', problems: [] });
  const env = orchTrainEnv();
  loop = (async () => {
    const client = await env.client();
    const r = await client.call(
      'orchRun',
      { iterations, snapshotEvery: env.snapshotEvery },
      { signal: controller.signal, onProgress: onProgress(set, get) },
    );
    if (running === controller) running = null;
    if (r.ok) {
      patch(set, get, { backend: r.value.backend, iteration: r.value.iteration });
      if (get().orchTrain.status === 'running') patch(set, get, { status: 'paused' });
    } else if (!controller.signal.aborted) fail(set, get, r.errors, 'error');
  })();
  return loop;
}

const remaining = (get: Get): number => Math.max(1, get().orchForm.iterations - get().orchTrain.iteration);

async function halt(set: Set, get: Get): Promise<void> {
  const wasRunning = running !== null;
  if (running) {
    patch(set, get, { status: 'pausing' });
    running.abort();
    running = null;
  }
  await loop;
  if (live && (wasRunning || get().orchTrain.savedAt !== get().orchTrain.iteration)) {
    const r = await (await orchTrainEnv().client()).call('orchSave', {});
    if (r.ok) patch(set, get, { ...shown(r.value), savedAt: r.value.iteration });
    else fail(set, get, r.errors);
  }
  patch(set, get, { status: 'paused' });
}

/** The folder a run starts from: the form's model, or (resuming) the model the run was made from. */
function folderOf(get: Get, resume: boolean): string {
  const t = get().orchTrain;
  const own = t.model?.id ?? t.resumable?.model;
  return resume && own !== undefined && isOrchSftModel(own) ? own : get().orchForm.sftModel;
}

async function start(set: Set, get: Get, resume: boolean): Promise<boolean> {
  const f = get().orchForm;
  const folder = folderOf(get, resume);
  patch(set, get, { status: 'starting', problems: [] });
  const r = await (
    await orchTrainEnv().client()
  ).call('orchStart', {
    baseUrl: orchTrainEnv().baseUrl(),
    folder,
    config: {
      tasksPerIteration: f.tasksPerIteration,
      groupSize: f.groupSize,
      temperature: f.temperature,
      lambda: f.lambda,
      klCoef: f.klCoef,
      entropyCoef: f.entropyCoef,
      lr: f.lr,
      dom: f.dom,
      maxNewTokens: f.maxNewTokens,
      values: f.values,
      seed: f.seed,
      evalTasks: f.evalTasks,
    },
    resume,
    backend: buildEnv().prefer ?? get().trainCompute,
  });
  if (!r.ok) {
    live = false;
    fail(set, get, r.errors, resume ? 'paused' : 'error');
    return false;
  }
  live = true;
  patch(set, get, {
    ...shown(r.value.run),
    backend: { backend: r.value.backend, reason: r.value.reason },
    model: r.value.model,
    resumable: null,
  });
  return true;
}

export async function setOrchModel(set: Set, get: Get, id: OrchSftModelId): Promise<void> {
  set({ orchForm: withOrchModel(get().orchForm, id) });
}

export async function initOrchTrain(set: Set, get: Get): Promise<void> {
  if (live || get().orchTrain.status !== 'idle') return;
  const r = await (await orchTrainEnv().client()).call('orchSaved', {});
  if (!r.ok) {
    fail(set, get, r.errors);
    return;
  }
  if (!r.value || get().orchTrain.status !== 'idle') return;
  const c = r.value.config;
  const num = (k: string, d: number): number => (typeof c[k] === 'number' ? c[k] : d);
  const f = get().orchForm;
  const model = r.value.model;
  const values = Array.isArray(c.values) && c.values.every((v) => typeof v === 'number') ? c.values : null;
  set({
    orchForm: {
      ...f,
      ...(isOrchSftModel(model) ? { sftModel: model } : {}),
      maxNewTokens: num('maxNewTokens', f.maxNewTokens),
      ...(values ? { values: values as number[] } : {}),
      evalTasks: num('evalTasks', f.evalTasks),
      tasksPerIteration: num('tasksPerIteration', f.tasksPerIteration),
      groupSize: num('groupSize', f.groupSize),
      temperature: num('temperature', f.temperature),
      lambda: num('lambda', f.lambda),
      klCoef: num('klCoef', f.klCoef),
      entropyCoef: num('entropyCoef', f.entropyCoef),
      lr: num('lr', f.lr),
      seed: num('seed', f.seed),
      iterations: Math.max(f.iterations, r.value.iteration + 1),
    },
  });
  patch(set, get, {
    ...shown(r.value),
    status: 'paused',
    savedAt: r.value.iteration,
    resumable: { iteration: r.value.iteration, model: r.value.model },
  });
}

export async function startOrchTrain(set: Set, get: Get): Promise<void> {
  await halt(set, get);
  set({ orchTrain: { ...IDLE_ORCH_TRAIN, status: 'starting' } });
  await (await orchTrainEnv().client()).call('orchForget', {});
  if (await start(set, get, false)) void runTo(set, get, get().orchForm.iterations);
}

export const pauseOrchTrain = (set: Set, get: Get): Promise<void> => halt(set, get);

export async function resumeOrchTrain(set: Set, get: Get): Promise<void> {
  if (running) return;
  if (!live && !(await start(set, get, true))) return;
  void runTo(set, get, remaining(get));
}

export async function stepOrchTrain(set: Set, get: Get): Promise<void> {
  if (running) return;
  if (!live && !(await start(set, get, true))) return;
  await runTo(set, get, 1);
  await halt(set, get);
}

export async function resetOrchTrain(set: Set, _get: Get): Promise<void> {
  if (running) running.abort();
  running = null;
  await loop;
  const r = await (await orchTrainEnv().client()).call('orchReset', {});
  live = false;
  set({ orchTrain: { ...IDLE_ORCH_TRAIN, problems: r.ok ? [] : workerProblems(r.errors) } });
}

/** The worker holds the run (rebuilt from the saved checkpoint when it does not). */
export async function ensureLive(set: Set, get: Get): Promise<boolean> {
  if (running) await halt(set, get);
  if (live) return true;
  if (get().orchTrain.savedAt === null) {
    patch(set, get, { problems: [problemOf('E_TRAIN_NOTHING', 'train the orchestrator first')] });
    return false;
  }
  return start(set, get, true);
}

export async function evaluateOrchTrain(set: Set, get: Get): Promise<void> {
  if (!(await ensureLive(set, get))) return;
  const before = get().orchTrain.status;
  patch(set, get, { status: 'evaluating' });
  const r = await (
    await orchTrainEnv().client()
  ).call('orchEvaluate', { tasks: Math.max(1, get().orchForm.evalTasks) });
  patch(set, get, { status: before === 'evaluating' ? 'paused' : before });
  if (r.ok) patch(set, get, { evaluation: r.value });
  else fail(set, get, r.errors);
}

export async function useOrchInOrchestrate(set: Set, get: Get): Promise<string | null> {
  if (!(await ensureLive(set, get))) return null;
  const before = get().orchTrain.status;
  patch(set, get, { status: 'exporting' });
  const r = await (await orchTrainEnv().client()).call('orchExport', { baseUrl: orchTrainEnv().baseUrl() });
  patch(set, get, { status: before === 'exporting' ? 'paused' : before });
  if (!r.ok) {
    fail(set, get, r.errors);
    return null;
  }
  patch(set, get, { exported: r.value });
  // The folder's files are read back in fp32: the trained weights as they are.
  get().setOrchDraft({
    orchestrator: 'model',
    modelKind: 'custom',
    customModel: r.value.url,
    dtype: 'fp32',
  });
  void get().loadOrchModel();
  return r.value.url;
}

export async function loseOrchDevice(set: Set, get: Get, afterIterations: number): Promise<boolean> {
  if (!live) return false;
  const r = await (await orchTrainEnv().client()).call('orchLoseDevice', { afterIterations });
  if (!r.ok) fail(set, get, r.errors);
  return r.ok && r.value.armed;
}
