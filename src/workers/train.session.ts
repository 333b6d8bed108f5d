/**
 * What the training worker does, as RPC handlers over one trainer (src/train `Trainer`). Kept apart
 * from `train.worker.ts` so tests serve the same handlers over a MessageChannel with their own
 * backend chooser.
 *
 * - Every piece of work (start, one iteration, snapshot, evaluation, reset) runs through one queue,
 *   so a `snapshot` asked for while an iteration runs answers with that iteration finished.
 * - `run` yields to the event loop (a macrotask) before every iteration: that is when a `cancel`
 *   (the page's "pause") arrives; the iteration in flight finishes, no further one starts.
 * - `rerun` and `ablation` train their own trainers (the held run is left alone) through the same
 *   queue; on the CPU an iteration never waits for I/O, so the simulated runners they use take a
 *   macrotask every few tens of milliseconds, which is when their `cancel` can arrive.
 * - After every finished iteration the worker keeps the trainer's snapshot in memory. When the
 *   WebGPU device is lost during an iteration, that iteration is dropped and the trainer is built
 *   again from the kept snapshot on the best CPU-side backend (WebAssembly SIMD where the engine
 *   has it, else TypeScript): at most one iteration's work is lost, and a `recovered` report says so.
 */
import { simulatedRunners } from '../executor/train-runners.ts';
import type { BackendChoice, BackendPreference, ProbeWorkload } from '../gpu/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  incompatibility,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../policy/index.ts';
import {
  ABLATION_VARIANTS,
  Trainer,
  heldOutRollouts,
  iterationWorkload,
  runAblation,
  scoreHeldOut,
  snapshotToJson,
  rolloutTimes,
  structureOf,
  trainConfig,
  type EvalResult,
  type IterationMetrics,
  type StructureStats,
  type RolloutWorkers,
  type TrainConfig,
  type TrainerSnapshot,
} from '../train/index.ts';
import { backendAfterLoss, deviceWasLost } from './device-loss.ts';
import type { Handlers } from './rpc/server.ts';
import type { OutputIn, ProgressIn } from './rpc/protocol.ts';
import type { SimPool } from './sim-pool.ts';
import type { SimThreads, StructureRow, TrainMethods } from './train.methods.ts';

// The trainer's own types and the wire schemas' inferred types differ only in index signatures and
// ArrayBuffer generics; the server parses every report and answer against the schemas anyway.
type Progress = ProgressIn<TrainMethods['run']>;
const asSnapshot = (s: TrainerSnapshot): OutputIn<TrainMethods['snapshot']> =>
  s as unknown as OutputIn<TrainMethods['snapshot']>;

/** Picks the compute backend; `onLost` is called when a WebGPU device is lost. */
/**
 * Picks the backend; with `workload`, `auto` times that on a hardware adapter instead of the generic
 * probe step (the training run passes one iteration of its config: src/train/backend-probe.ts).
 */
export type ChooseBackend = (
  prefer: BackendPreference,
  onLost: (message: string) => void,
  workload?: ProbeWorkload,
) => Promise<BackendChoice>;

export interface TrainSessionDeps {
  choose: ChooseBackend;
  /** ms, for episodes per second. */
  now?: () => number;
  /**
   * Keeps a snapshot (`baton.train/1` text) where the page reads it back (the worker: IndexedDB).
   * Without it, or when it fails, the snapshot goes to the page as text.
   */
  storeSnapshot?: (text: string) => Promise<void>;
  /**
   * A pool that spreads a run's simulated sub-agents over worker threads (sim-pool.ts), for the
   * run's `simThreads` setting; without it they run in this thread. The same numbers either way.
   */
  simPool?: (threads: SimThreads) => SimPool;
  /**
   * Rollout workers (rollout-pool.ts) for the run's `rolloutThreads` setting: blocks of each
   * iteration's constructions sampled whole on worker threads when the run samples on the CPU side;
   * without it, or with 1 thread, every rollout is sampled in this thread. The same numbers either way.
   */
  rolloutPool?: (threads: SimThreads) => RolloutWorkers;
}

/** Held-out tasks of the periodic evaluation while a run trains (greedy, the same tasks each time). */
export const HELDOUT_N = 16;
const HELDOUT_SEED = 1;

/** A macrotask: lets messages (a `cancel`) arrive between iterations. */
const macrotask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

interface Session {
  trainer: Trainer;
  choice: BackendChoice;
  config: TrainConfig;
  /** The trainer's state after the last finished iteration (what device loss resumes from). */
  last: TrainerSnapshot;
  /** Set by the device's `lost` handler. */
  lost: string | null;
  /** Test hook: minibatch updates left before the device is destroyed (null = not armed). */
  loseAfter: number | null;
  /** Where the run's simulated sub-agents run (null: this thread). */
  sim: SimPool | null;
  /** The run's rollout workers (null: rollouts sampled in this thread alone). */
  rollouts: RolloutWorkers | null;
  /** `auto` rollout threads: the workers are timed against this thread alone and kept if faster. */
  rolloutProbe: boolean;
  /** The backend line the page was last sent. */
  reasonSent?: string;
}

const disposeChoice = (c: BackendChoice): void => {
  try {
    c.ctx?.dispose();
  } catch {
    // A device already lost or destroyed has nothing left to release.
  }
};

const CPU_ONLY: BackendChoice = {
  backend: 'cpu',
  reason: 'a re-run is compared number for number, on the CPU backend',
  adapter: null,
  ctx: null,
};

/** A run's simulated runners: its pool's, or this thread's. */
const runnersOf = (sim: SimPool | null): typeof simulatedRunners => sim?.runners ?? simulatedRunners;

/** The simulated runners with a macrotask now and then (every `everyMs` of work), for cancels. */
function yieldingRunners(now: () => number, everyMs = 30): typeof simulatedRunners {
  let last = now();
  return (task, seed) => {
    const inner = simulatedRunners(task, seed);
    return {
      ...inner,
      final: async (trace) => {
        if (now() - last > everyMs) {
          await macrotask();
          last = now();
        }
        return inner.final(trace);
      },
    };
  };
}

export function trainHandlers(deps: TrainSessionDeps): Handlers<TrainMethods> {
  const now = deps.now ?? (() => performance.now());
  const pool = DEFAULT_POOL;
  /** The backend's reason, and the threads the run's simulated sub-agents use when a pool has them. */
  const reasonOf = (s: {
    choice: BackendChoice;
    sim: SimPool | null;
    rollouts: RolloutWorkers | null;
    trainer?: Trainer;
  }): string => {
    const threads = (what: string, p: { threads: number; problems: readonly string[] }): string => {
      const n = p.threads;
      const stopped = p.problems[0];
      return `; ${what} on ${n} thread${n === 1 ? '' : 's'}${stopped ? ` (${stopped})` : ''}`;
    };
    const sim = s.sim ? threads('simulated sub-agents', s.sim) : '';
    // With `auto` threads, the workers on trial and what the trial found (train/rollout-probe.ts).
    const rolloutThreads = (p: RolloutWorkers, t: Trainer | undefined): string => {
      const chosen = t?.rolloutChoice;
      if (t?.rolloutProbing) return `${threads('rollouts', p)} (timing them against this thread alone)`;
      if (!chosen) return threads('rollouts', p);
      const timed = rolloutTimes(chosen);
      return chosen.pool ? `${threads('rollouts', p)} (${timed})` : `; rollouts on this thread (${timed})`;
    };
    // Rollout workers sample on the CPU side: a run whose rollouts are sampled on WebGPU keeps them here.
    const cpuSide = (s.trainer?.rolloutBackend ?? s.choice.backend) !== 'webgpu';
    const rollouts = s.rollouts
      ? cpuSide
        ? rolloutThreads(s.rollouts, s.trainer)
        : '; rollouts sampled on WebGPU in this thread (rollout workers sample on the CPU side only)'
      : '';
    const text = `${s.choice.reason}${sim}${rollouts}`;
    // The wire's limit (BackendStateSchema).
    return text.length > 2000 ? `${text.slice(0, 1999)}…` : text;
  };
  let session: Session | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const next = queue.then(job, job);
    queue = next.catch(() => undefined);
    return next;
  };

  const need = (): Session => {
    if (!session) throw new Error('no training run: start one first');
    return session;
  };

  const destroyDevice = (s: Session): boolean => {
    const ctx = s.choice.ctx;
    if (!ctx) return false;
    ctx.device.destroy();
    return true;
  };

  const build = async (
    s: Omit<Session, 'trainer' | 'last'>,
    start: PolicyCheckpoint,
    resume: TrainerSnapshot | undefined,
  ): Promise<Session> => {
    const full = s as Session;
    full.trainer = await Trainer.create({
      start,
      pool,
      config: s.config,
      choice: s.choice,
      runners: runnersOf(s.sim),
      ...(s.rollouts ? { rolloutWorkers: s.rollouts } : {}),
      ...(s.rollouts && s.rolloutProbe ? { rolloutProbe: now } : {}),
      ...(resume ? { resume } : {}),
      onUpdate: () => {
        if (full.loseAfter === null) return;
        if (full.loseAfter > 0) full.loseAfter -= 1;
        else {
          full.loseAfter = null;
          destroyDevice(full);
        }
      },
    });
    full.last = await full.trainer.snapshot();
    full.reasonSent = reasonOf(full);
    return full;
  };

  const drop = (): void => {
    if (!session) return;
    session.trainer.dispose();
    disposeChoice(session.choice);
    session.sim?.dispose();
    session.rollouts?.dispose();
    session = null;
  };

  /** Whether the device was lost (device-loss.ts; a failed iteration waits for the `lost` event). */
  const wasLost = (s: Session, failed: boolean): Promise<boolean> =>
    deviceWasLost(s.choice, () => s.lost !== null || s.choice.ctx?.lost === true, failed);

  type Step =
    | { kind: 'iteration'; metrics: TrainerSnapshot['history'][number]; ms: number }
    | { kind: 'recovered'; message: string };

  const iterate = async (): Promise<Step> => {
    const s = need();
    const t0 = now();
    let failure: unknown = null;
    let metrics: TrainerSnapshot['history'][number] | null = null;
    let last: TrainerSnapshot | null = null;
    try {
      metrics = await s.trainer.iterate();
      // Inside the loss check: a device lost in the iteration's last update may fail only this
      // read, before its `lost` event has settled.
      last = await s.trainer.snapshot();
    } catch (e) {
      failure = e;
    }
    if (await wasLost(s, failure !== null)) {
      // The iteration ran (partly) on a lost device: drop it and continue on the CPU side from the
      // snapshot before it.
      const message = s.lost ?? (failure instanceof Error ? failure.message : 'device lost');
      s.trainer.dispose();
      disposeChoice(s.choice);
      session = await build(
        {
          choice: await backendAfterLoss(deps.choose, message),
          config: s.last.config,
          lost: null,
          loseAfter: null,
          sim: s.sim,
          rollouts: s.rollouts,
          rolloutProbe: s.rolloutProbe,
        },
        s.last.start,
        s.last,
      );
      return { kind: 'recovered', message };
    }
    if (failure !== null || metrics === null || last === null) throw failure;
    s.last = last;
    return { kind: 'iteration', metrics, ms: now() - t0 };
  };

  const evalOne = async (
    cp: PolicyCheckpoint,
    choice: BackendChoice,
    config: TrainConfig,
    n: number,
    seed: number,
    sim: SimPool | null,
  ): Promise<{ result: EvalResult; structure: Record<string, StructureRow> }> => {
    const net = await PolicyNetwork.create(cp, choice);
    try {
      const rows = await heldOutRollouts({
        net,
        pool,
        config,
        runners: runnersOf(sim),
        n,
        seed,
        greedy: true,
      });
      const table = structureOf(rows, pool, { policy: cp.name, preset: config.preset, greedy: true });
      const compact = (x: StructureStats): StructureRow => ({
        n: x.n,
        agents: x.agents,
        edges: x.edges,
        depth: x.depth,
        roleUse: x.roleUse,
      });
      const structure: Record<string, StructureRow> = { all: compact(table.overall) };
      for (const [axis, x] of Object.entries(table.perAxis)) structure[axis] = compact(x);
      return { result: scoreHeldOut(rows), structure };
    } finally {
      net.dispose();
    }
  };

  return {
    start: ({ config, from, backend, simThreads, rolloutThreads }) =>
      serial(async () => {
        drop();
        let start: PolicyCheckpoint;
        let resume: TrainerSnapshot | undefined;
        if (from.kind === 'random') start = randomCheckpoint(pool, from.seed);
        else if (from.kind === 'prior') start = priorCheckpoint(pool);
        else if (from.kind === 'checkpoint') start = from.checkpoint;
        else {
          resume = from.snapshot as TrainerSnapshot;
          start = resume.start;
        }
        const why = incompatibility(
          start,
          pool.roles.map((r) => r.name),
        );
        if (why) throw new Error(`${start.name}: ${why}`);
        const holder: { s: Session | null } = { s: null };
        const sim = deps.simPool?.(simThreads) ?? null;
        let rollouts = rolloutThreads !== 1 ? (deps.rolloutPool?.(rolloutThreads) ?? null) : null;
        // `auto` on a machine with no core to spare starts no worker: this thread alone.
        if (rollouts && rollouts.threads <= 1 && rolloutThreads === 'auto') {
          rollouts.dispose();
          rollouts = null;
        }
        const rolloutProbe = rolloutThreads === 'auto';
        const workload = iterationWorkload({
          start,
          pool,
          config: resume ? resume.config : config,
          runners: runnersOf(sim),
          ...(resume ? { resume } : {}),
        });
        const choice = await deps.choose(
          backend,
          (message) => {
            if (holder.s) holder.s.lost = message;
          },
          workload,
        );
        try {
          const s = await build(
            {
              choice,
              config: resume ? resume.config : config,
              lost: null,
              loseAfter: null,
              sim,
              rollouts,
              rolloutProbe,
            },
            start,
            resume,
          );
          holder.s = s;
          session = s;
          return {
            backend: choice.backend,
            reason: reasonOf(s),
            iteration: s.trainer.iteration,
            startName: start.name,
          };
        } catch (e) {
          disposeChoice(choice);
          sim?.dispose();
          rollouts?.dispose();
          throw e;
        }
      }),

    async run({ iterations, snapshotEvery }, { signal, progress }) {
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
            lost: 1,
            message: step.message,
            backend: { backend: s.choice.backend, reason: reasonOf(s) },
          });
          // The dropped iteration is taken again on the CPU.
          i -= 1;
          continue;
        }
        const eps = step.ms > 0 ? (step.metrics.episodes * 1000) / step.ms : 0;
        progress({
          kind: 'iteration',
          metrics: step.metrics as unknown as Extract<Progress, { kind: 'iteration' }>['metrics'],
          episodesPerSecond: eps,
          ms: step.ms,
        });
        const reason = reasonOf(s);
        if (reason !== s.reasonSent) {
          s.reasonSent = reason;
          progress({ kind: 'backend', backend: { backend: s.choice.backend, reason } });
        }
        const every = s.config.evalEvery;
        if (every > 0 && s.trainer.iteration % every === 0) {
          await macrotask();
          if (!signal.aborted) {
            const { result } = await serial(() =>
              evalOne(s.trainer.checkpoint, s.choice, s.config, HELDOUT_N, HELDOUT_SEED, s.sim),
            );
            progress({
              kind: 'heldout',
              iteration: s.trainer.iteration,
              n: HELDOUT_N,
              accuracy: result.accuracy,
              reward: result.reward,
            });
          }
        }
        if (s.trainer.iteration % snapshotEvery === 0 || i === iterations - 1) {
          const text = snapshotToJson(s.last);
          let stored = false;
          if (deps.storeSnapshot)
            stored = await deps.storeSnapshot(text).then(
              () => true,
              () => false,
            );
          progress({ kind: 'snapshot', iteration: s.last.iteration, ...(stored ? {} : { text }) });
        }
      }
      const s = need();
      return {
        iteration: s.trainer.iteration,
        backend: { backend: s.choice.backend, reason: reasonOf(s) },
      };
    },

    snapshot: () => serial(() => Promise.resolve(asSnapshot(need().last))),

    trained: () => serial(() => need().trainer.trained()),

    evaluate: ({ n, seed }, { progress }) =>
      serial(async () => {
        const s = session;
        const cpu: BackendChoice = { backend: 'cpu', reason: 'evaluation', adapter: null, ctx: null };
        const choice = s?.choice ?? cpu;
        const config = s?.config ?? trainConfig({});
        const total = s ? 3 : 2;
        progress({ done: 0, total });
        const prior = await evalOne(priorCheckpoint(pool), choice, config, n, seed, s?.sim ?? null);
        progress({ done: 1, total });
        await macrotask();
        const random = await evalOne(randomCheckpoint(pool, 0), choice, config, n, seed, s?.sim ?? null);
        progress({ done: 2, total });
        let current: Awaited<ReturnType<typeof evalOne>> | null = null;
        if (s) {
          await macrotask();
          current = await evalOne(s.trainer.checkpoint, choice, config, n, seed, s.sim);
          progress({ done: 3, total });
        }
        return {
          n,
          seed,
          prior: prior.result,
          random: random.result,
          current: current?.result ?? null,
          structure: {
            prior: prior.structure,
            random: random.structure,
            current: current?.structure ?? null,
          },
          iteration: s?.trainer.iteration ?? 0,
        };
      }),

    reset: () =>
      serial(() => {
        drop();
        return Promise.resolve({});
      }),

    rerun: ({ config, from, iterations }, { signal, progress }) =>
      serial(async () => {
        const start = from.kind === 'random' ? randomCheckpoint(pool, from.seed) : priorCheckpoint(pool);
        const trainer = await Trainer.create({
          start,
          pool,
          config,
          choice: CPU_ONLY,
          runners: yieldingRunners(now),
        });
        try {
          const history: IterationMetrics[] = [];
          for (let i = 0; i < iterations; i++) {
            await macrotask();
            if (signal.aborted) throw new Error('the re-run was cancelled');
            history.push(await trainer.iterate());
            progress({ iteration: i + 1, iterations });
          }
          return { history: history as unknown as OutputIn<TrainMethods['rerun']>['history'] };
        } finally {
          trainer.dispose();
        }
      }),

    ablation: (input, { signal, progress }) =>
      serial(async () => {
        const variants = input.variants.map((id) => {
          const v = ABLATION_VARIANTS.find((x) => x.id === id);
          if (!v) throw new Error(`unknown ablation variant "${id}"`);
          return v;
        });
        const start =
          input.from.kind === 'random' ? randomCheckpoint(pool, input.from.seed) : priorCheckpoint(pool);
        const choice = await deps.choose(input.backend, () => undefined);
        try {
          const study = await runAblation({
            start,
            pool,
            choice,
            runners: yieldingRunners(now),
            base: input.base,
            variants,
            seeds: input.seeds,
            iterations: input.iterations,
            evalN: input.evalN,
            evalSeed: input.evalSeed,
            shouldStop: () => signal.aborted,
            onProgress: (p) => {
              // Stops the run in flight at once; the cancelled call's answer is not sent anyway.
              if (signal.aborted) throw new Error('the ablation study was cancelled');
              progress({
                variant: p.variant,
                variantIndex: p.variantIndex,
                seedIndex: p.seedIndex,
                seed: p.seed,
                iteration: p.iteration,
                iterations: p.iterations,
                runsDone: p.runsDone,
                runsTotal: p.runsTotal,
              });
            },
          });
          return study as unknown as OutputIn<TrainMethods['ablation']>;
        } finally {
          disposeChoice(choice);
        }
      }),

    loseDevice: ({ afterUpdates }) =>
      serial((): Promise<{ armed: boolean }> => {
        const s = session;
        if (!s || !s.choice.ctx) return Promise.resolve({ armed: false });
        if (afterUpdates === 0) destroyDevice(s);
        else s.loseAfter = afterUpdates - 1;
        return Promise.resolve({ armed: true });
      }),
  };
}
