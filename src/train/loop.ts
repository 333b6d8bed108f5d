/**
 * The training loop: per iteration, B tasks × G constructions sampled from the current policy
 * (rollout.ts), their rewards and advantages (advantages.ts), then K epochs of PPO minibatch
 * updates through the compute core (learner.ts). Pure and seeded: the same checkpoint, config and
 * runners give the same metrics on the CPU backend, bit for bit.
 *
 * `Trainer` is the steppable form the Train page's worker drives one iteration at a time: its
 * whole state (parameters, Adam moments, REINFORCE baseline, iteration count, history) is a
 * `TrainerSnapshot` (snapshot.ts), and a trainer resumed from a snapshot continues bit-identically
 * on the CPU backend. `train` runs N iterations headless (`baton train`).
 */
import { createRng, mix32 } from '../core/rng.ts';
import type { BackendChoice } from '../gpu/index.ts';
import { taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  BatchedPolicy,
  PolicyNetwork,
  encodeTask,
  encoderVersion,
  migrateCheckpoint,
  type EdgeMode,
  type PolicyCheckpoint,
  type RolePool,
} from '../policy/index.ts';
import { advantages } from './advantages.ts';
import type { TrainConfig } from './config.ts';
import { Learner, type UpdateStats } from './learner.ts';
import { overlapped } from './overlap.ts';
import { iterationMetrics, meanUpdate, type IterationMetrics, type RolloutStats } from './metrics.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type Rollout, type RunnersFor } from './rollout.ts';
import { rolloutMany } from './rollout-batch.ts';
import { RolloutProbe, type RolloutChoice } from './rollout-probe.ts';
import type { RolloutWorkers } from './rollout-workers.ts';
import { SNAPSHOT_FORMAT, type TrainerSnapshot } from './snapshot.ts';

export type { RolloutStats } from './metrics.ts';

export interface UpdateMetrics extends UpdateStats, RolloutStats {
  iteration: number;
  epoch: number;
  minibatch: number;
}

/** Injected clock for profiling (ms); the trainer itself reads no time. */
export type Clock = () => number;

export interface TrainerOptions {
  /** The policy training starts from (also the frozen KL reference). */
  start: PolicyCheckpoint;
  pool: RolePool;
  config: TrainConfig;
  choice: BackendChoice;
  runners: RunnersFor;
  /** Continue from this snapshot (its config and start checkpoint win over the options'). */
  resume?: TrainerSnapshot;
  /** Called after every minibatch update. */
  onUpdate?: (m: UpdateMetrics) => void;
  /** With a clock, iteration metrics carry `timings` (rollout, update ms, the update's phases). */
  clock?: Clock;
  /**
   * How rollouts are sampled: `batched` (default) runs one policy pass per construction step over
   * all B·G episodes (rollout-batch.ts); `sequential` samples one episode at a time (rollout.ts),
   * the reference the throughput benchmark compares with. Both give the same rollouts on the CPU.
   */
  sampling?: 'batched' | 'sequential';
  /**
   * Where batched rollouts are sampled, when not on the learner's backend (`choice`). A WebGPU
   * learner can sample on wasm: a construction step's pass is a few dozen states, and on a GPU its
   * submission and read-back cost more than the arithmetic. The old log-probabilities of the PPO
   * ratio always come from the learner, so the update does not depend on where rollouts ran.
   * Default: the learner's backend, or the CPU-side backend that `auto` chose for rollouts on this
   * device (`choice.samplerBackend`).
   */
  samplerChoice?: BackendChoice;
  /**
   * Log π passes and minibatch updates started before the last one's result is awaited (overlap.ts;
   * default 2: the host packs the next minibatch while the device runs the last). 1 awaits each
   * first. The numbers are the same either way; benchmarks compare the times.
   */
  overlap?: number;
  /** Rows per log π pass (`Learner.passRows`, default 512; at most the minibatch: a minibatch each). */
  passRows?: number;
  /** The batched sampler's edge mode (`BatchedPolicy`; default `fused` on WebGPU, else `two-pass`). */
  samplerEdgeMode?: EdgeMode;
  /**
   * Streams of the batched sampler (`constructMany`): groups of episodes stepped independently, so
   * that one group's pass runs on the device while the host runs another's sub-agents (on a CPU
   * backend a pass computes when called: nothing overlaps). Default 1; the same rollouts either
   * way where a row's numbers do not depend on its batch. Benchmarks compare (`bench:streams`, the
   * device benchmark's `webgpu_streams`).
   */
  samplerStreams?: number;
  /**
   * Rollout workers (rollout-workers.ts): batched rollouts sampled in blocks, one here and one per
   * worker thread, when the sampler runs on the CPU side (`cpu` or `wasm`); on a WebGPU sampler, or
   * sequential sampling, they stay unused. Its workers run the simulator's runners: give it only
   * with `simulatedRunners` as `runners`. The same rollouts either way (tested).
   */
  rolloutWorkers?: RolloutWorkers;
  /**
   * With `rolloutWorkers`: the clock (ms) to time them by against this thread alone on the run's
   * first iterations, keeping the faster (rollout-probe.ts; `rolloutChoice` says which); workers
   * not kept are stopped (`dispose`). Without, the workers sample every iteration.
   */
  rolloutProbe?: Clock;
}

export class Trainer {
  private constructor(
    private readonly o: TrainerOptions,
    readonly config: TrainConfig,
    readonly start: PolicyCheckpoint,
    private readonly learner: Learner,
    private current: PolicyCheckpoint,
    private baseline: number | null,
    private done: number,
    private readonly past: IterationMetrics[],
    private updates: number,
  ) {}

  /** The batched sampler kept across iterations (`sampler`). */
  private batched: BatchedPolicy | null = null;
  /** The learner's parameter arena as the last iteration left it (the sampler loads it). */
  private arena: Float32Array | null = null;
  /** Rollout workers on trial against this thread alone (`rolloutProbe`). */
  private probe: RolloutProbe | null = null;

  /**
   * Whether the rollout workers sample (`rolloutProbe`): null while they are measured (or with no
   * probe), then the decision with both ways' mean rollout ms.
   */
  get rolloutChoice(): RolloutChoice | null {
    return this.probe?.choice ?? null;
  }

  /** Rollout workers still on trial against this thread alone (for a status line). */
  get rolloutProbing(): boolean {
    return this.probe !== null && this.probe.choice === null;
  }

  static async create(o: TrainerOptions): Promise<Trainer> {
    const r = o.resume;
    const config = r ? r.config : o.config;
    const start = r ? r.start : o.start;
    const current = r ? r.checkpoint : o.start;
    const learner = await Learner.create(current, start, o.pool, config, o.choice);
    if (o.overlap !== undefined) learner.overlap = o.overlap;
    if (o.passRows !== undefined) learner.passRows = o.passRows;
    if (r?.optimizer) learner.model.importState(r.optimizer);
    const trainer = new Trainer(
      o,
      config,
      start,
      learner,
      current,
      r ? r.baseline : null,
      r ? r.iteration : 0,
      r ? [...r.history] : [],
      r ? r.updates : 0,
    );
    if (o.rolloutProbe && o.rolloutWorkers && o.rolloutWorkers.threads > 1)
      trainer.probe = new RolloutProbe(o.rolloutWorkers.threads, o.rolloutProbe);
    return trainer;
  }

  /** Iterations finished so far. */
  get iteration(): number {
    return this.done;
  }

  /** Metrics of every finished iteration, oldest first. */
  get history(): readonly IterationMetrics[] {
    return this.past;
  }

  /** The current policy (parameters after the last finished iteration). */
  get checkpoint(): PolicyCheckpoint {
    return this.current;
  }

  /** One iteration: rollouts, advantages, K epochs of minibatch updates. */
  async iterate(): Promise<IterationMetrics> {
    const c = this.config;
    const it = this.done;
    const clock = this.o.clock;
    const t0 = clock?.() ?? 0;
    const tasks = drawTasks(PRESET_TABLE[c.preset], mix32(c.seed + it), c.tasksPerIteration, 'train');
    const trial = this.probe?.start() ?? null;
    const groups = await this.sample(tasks, it, trial?.pool ?? true);
    if (trial) {
      const open = this.probe?.choice === null;
      trial.end();
      // Workers the trial did not keep are stopped when it ends (they would sit idle).
      if (open && this.probe?.choice?.pool === false) this.o.rolloutWorkers?.dispose();
    }
    const t1 = clock?.() ?? 0;
    const adv = advantages(c, groups, this.baseline);
    this.baseline = adv.baseline;
    const all = groups.flat();
    const learner = this.learner;
    const full = learner.batch(
      all.map((r) => ({
        task: encodeTask(taskOfMasbench(r.task).query, this.current.config.hashDim),
        steps: r.steps,
        limits: {
          maxAgents: this.current.config.maxAgents,
          maxSteps: Math.min(c.maxSteps, this.current.config.maxSteps),
        },
        ...(r.states ? { states: r.states } : {}),
      })),
    );
    const stepAdv = Float64Array.from(adv.steps.flat(2));
    const tEncoded = clock?.() ?? 0;
    // With klCoef > 0 the learner has a reference graph and gives both; else only the old log π.
    const { old: oldLogp, ref: refLogp } = await learner.oldAndReference(full);
    const tOld = clock?.() ?? 0;
    const rng = createRng(mix32(c.seed + 0x51ed + it));
    const rows = Array.from({ length: stepAdv.length }, (_, i) => i);
    const stats: UpdateStats[] = [];
    const partial = iterationMetrics(it + 1, groups, adv.rewards, this.o.pool, meanUpdate([]));
    const jobs: { epoch: number; minibatch: number; pick: number[] }[] = [];
    for (let epoch = 0; epoch < c.epochs; epoch++) {
      const order = rng.shuffle(rows);
      for (let mb = 0; mb * c.minibatch < order.length; mb++)
        jobs.push({ epoch, minibatch: mb, pick: order.slice(mb * c.minibatch, (mb + 1) * c.minibatch) });
    }
    // Each update is submitted before the last one's statistics are awaited (overlap.ts); they
    // run in this order either way, so the numbers are those of updates awaited one by one.
    await overlapped(
      jobs.length,
      // The last update also reads the arena that the next iteration's sampler loads.
      (i) => {
        const pick = (jobs[i] as (typeof jobs)[number]).pick;
        return learner.update(full, pick, oldLogp, refLogp, stepAdv, true, i === jobs.length - 1);
      },
      (u, i) => {
        const { epoch, minibatch } = jobs[i] as (typeof jobs)[number];
        stats.push(u);
        this.updates++;
        this.o.onUpdate?.({
          iteration: it,
          epoch,
          minibatch,
          ...u,
          meanReward: partial.meanReward,
          accuracy: partial.accuracy,
          tokens: partial.tokens,
          steps: partial.steps,
        });
      },
      learner.overlap,
    );
    const tSteps = clock?.() ?? 0;
    const arena = await learner.arena();
    this.current = await learner.snapshot(this.start.name, {}, arena);
    this.arena = arena;
    const t2 = clock?.() ?? 0;
    const m = iterationMetrics(it + 1, groups, adv.rewards, this.o.pool, meanUpdate(stats));
    if (clock) {
      const phases = {
        encodeMs: tEncoded - t1,
        oldLogpMs: tOld - tEncoded,
        stepsMs: tSteps - tOld,
        readBackMs: t2 - tSteps,
      };
      m.timings = { rolloutMs: t1 - t0, updateMs: t2 - t1, phases };
    }
    this.past.push(m);
    this.done = it + 1;
    return m;
  }

  /** B tasks × G constructions from the current policy, grouped by task. */
  private async sample(tasks: readonly MasBenchTask[], it: number, viaPool: boolean): Promise<Rollout[][]> {
    const c = this.config;
    const seedOf = (ti: number, gi: number): number => mix32(c.seed ^ mix32(it * 65536 + ti * 256 + gi));
    const common = {
      pool: this.o.pool,
      runners: this.o.runners,
      maxSteps: c.maxSteps,
      temperature: c.temperature,
      greedy: false,
      intermediate: c.intermediate,
      rewards: c.actionReward,
    };
    if (this.o.sampling === 'sequential') {
      const net = await PolicyNetwork.create(this.current, this.o.choice, { jpss: c.jpss });
      try {
        const groups: Rollout[][] = [];
        for (const [ti, task] of tasks.entries()) {
          const group: Rollout[] = [];
          for (let gi = 0; gi < c.groupSize; gi++)
            group.push(await rollout({ ...common, net, task, seed: seedOf(ti, gi) }));
          groups.push(group);
        }
        return groups;
      } finally {
        net.dispose();
      }
    }
    const episodes = tasks.flatMap((task, ti) =>
      Array.from({ length: c.groupSize }, (_, gi) => ({ task, seed: seedOf(ti, gi) })),
    );
    const policy = await this.sampler(episodes.length);
    const here = (block: readonly { task: MasBenchTask; seed: number }[]): Promise<Rollout[]> =>
      rolloutMany({ ...common, policy, episodes: block });
    const workers = viaPool ? this.o.rolloutWorkers : undefined;
    const backend = policy.backend;
    const arena = policy.parameters;
    const all =
      workers && backend !== 'webgpu' && arena
        ? await workers.sample({
            checkpoint: policy.checkpoint,
            arena,
            backend,
            jpss: policy.jpss,
            edgeMode: policy.edgeMode,
            pool: this.o.pool,
            episodes,
            maxSteps: common.maxSteps,
            temperature: common.temperature,
            greedy: common.greedy,
            intermediate: common.intermediate,
            rewards: common.rewards,
            here,
          })
        : await here(episodes);
    return tasks.map((_, ti) => all.slice(ti * c.groupSize, (ti + 1) * c.groupSize));
  }

  /**
   * The batched sampler, compiled once and then loaded with the learner's parameter arena each
   * iteration (the learner's graph has the same parameters in the same order; compiling the
   * sampler's graphs anew every iteration cost about as much as sampling). A checkpoint of an older
   * encoder version (migrated by the sampler, not by the learner) gets a fresh sampler instead.
   */
  private async sampler(maxBatch: number): Promise<BatchedPolicy> {
    const s = this.batched;
    const same =
      encoderVersion(this.current.config) === encoderVersion(migrateCheckpoint(this.current).config);
    if (s && s.maxBatch === maxBatch && same) {
      s.load(this.current, this.arena ?? (await this.learner.arena()));
      return s;
    }
    s?.dispose();
    this.batched = BatchedPolicy.create(this.current, this.samplerChoice(), {
      maxBatch,
      jpss: this.config.jpss,
      streams: this.o.samplerStreams ?? 1,
      ...(this.o.samplerEdgeMode ? { edgeMode: this.o.samplerEdgeMode } : {}),
    });
    // Rollout workers take the parameters as an arena: one of this layout, the learner's.
    if (same && this.o.rolloutWorkers)
      this.batched.load(this.current, this.arena ?? (await this.learner.arena()));
    return this.batched;
  }

  /** The backend that samples this trainer's rollouts (samplerChoice). */
  get rolloutBackend(): BackendChoice['backend'] {
    return this.samplerChoice().backend;
  }

  /**
   * Where rollouts are sampled: `samplerChoice` when given; else on the CPU side where the `auto`
   * probe found that faster on this device (BackendChoice.samplerBackend); else on the learner's
   * backend.
   */
  private samplerChoice(): BackendChoice {
    if (this.o.samplerChoice) return this.o.samplerChoice;
    const { choice } = this.o;
    if (choice.backend !== 'webgpu' || !choice.samplerBackend) return choice;
    return {
      backend: choice.samplerBackend,
      reason: `rollouts on ${choice.samplerBackend}: the auto probe timed them faster there`,
      adapter: null,
      ctx: null,
    };
  }

  /** The current policy as a checkpoint with provenance in `meta`. */
  async trained(
    name = `trained:${this.config.algo}:${this.config.preset}:${this.done}`,
  ): Promise<PolicyCheckpoint> {
    const last = this.past[this.past.length - 1];
    return this.learner.snapshot(name, {
      trainedFrom: this.start.name,
      iterations: this.done,
      updates: this.updates,
      seed: this.config.seed,
      // Read by PolicyNetwork.create: a w/o-JPSS policy runs with the role-blind edge head.
      jpss: this.config.jpss,
      config: JSON.stringify(this.config).slice(0, 2000),
      lastMeanReward: last?.meanReward ?? 0,
      lastAccuracy: last?.accuracy ?? 0,
      lastTokens: last?.tokens ?? 0,
    });
  }

  /** Everything needed to continue exactly where this trainer is. */
  async snapshot(): Promise<TrainerSnapshot> {
    return {
      format: SNAPSHOT_FORMAT,
      config: this.config,
      start: this.start,
      checkpoint: await this.trained(),
      optimizer: await this.learner.model.exportState(),
      baseline: this.baseline,
      iteration: this.done,
      updates: this.updates,
      history: [...this.past],
    };
  }

  dispose(): void {
    this.learner.dispose();
    this.batched?.dispose();
    this.batched = null;
  }
}

export interface TrainOptions {
  checkpoint: PolicyCheckpoint;
  pool: RolePool;
  config: TrainConfig;
  choice: BackendChoice;
  runners: RunnersFor;
  iterations: number;
  /** Called after every update (progress, metrics log). */
  onUpdate?: (m: UpdateMetrics) => void;
  /** Called after every iteration. */
  onIteration?: (m: IterationMetrics) => void;
}

export interface TrainResult {
  checkpoint: PolicyCheckpoint;
  updates: UpdateMetrics[];
  iterations: IterationMetrics[];
}

/** N iterations headless; the trained checkpoint carries its provenance in `meta`. */
export async function train(o: TrainOptions): Promise<TrainResult> {
  const updates: UpdateMetrics[] = [];
  const trainer = await Trainer.create({
    start: o.checkpoint,
    pool: o.pool,
    config: o.config,
    choice: o.choice,
    runners: o.runners,
    onUpdate: (m) => {
      updates.push(m);
      o.onUpdate?.(m);
    },
  });
  try {
    for (let i = 0; i < o.iterations; i++) {
      const m = await trainer.iterate();
      o.onIteration?.(m);
    }
    return { checkpoint: await trainer.trained(), updates, iterations: [...trainer.history] };
  } finally {
    trainer.dispose();
  }
}
