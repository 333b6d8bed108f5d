/**
 * The training loop: per iteration, B tasks × G constructions sampled from the current policy
 * (rollout.ts), their rewards and advantages (advantages.ts), then K epochs of PPO minibatch
 * updates through the compute core (learner.ts). Pure and seeded: the same checkpoint, config and
 * runners give the same metrics on the CPU backend, bit for bit.
 */
import { createRng, mix32 } from '../core/rng.ts';
import type { BackendChoice } from '../gpu/index.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import { PolicyNetwork, encodeTask, type PolicyCheckpoint, type RolePool } from '../policy/index.ts';
import { advantages } from './advantages.ts';
import type { TrainConfig } from './config.ts';
import { Learner, type UpdateStats } from './learner.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type Rollout, type RunnersFor } from './rollout.ts';

export interface RolloutStats {
  /** Mean R over the iteration's constructions. */
  meanReward: number;
  /** Share of constructions whose final answer was correct. */
  accuracy: number;
  /** Mean prompt + completion tokens of a final run. */
  tokens: number;
  /** Mean construction steps. */
  steps: number;
}

export interface UpdateMetrics extends UpdateStats, RolloutStats {
  iteration: number;
  epoch: number;
  minibatch: number;
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
}

export interface TrainResult {
  checkpoint: PolicyCheckpoint;
  updates: UpdateMetrics[];
  iterations: RolloutStats[];
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

export async function train(o: TrainOptions): Promise<TrainResult> {
  const c = o.config;
  const learner = await Learner.create(o.checkpoint, o.checkpoint, o.pool, c, o.choice);
  const preset = PRESET_TABLE[c.preset];
  const updates: UpdateMetrics[] = [];
  const iterations: RolloutStats[] = [];
  let baseline: number | null = null;
  let current = o.checkpoint;
  try {
    for (let it = 0; it < o.iterations; it++) {
      const tasks = drawTasks(preset, mix32(c.seed + it), c.tasksPerIteration, 'train');
      const net = await PolicyNetwork.create(current, o.choice);
      const groups: Rollout[][] = [];
      try {
        for (const [ti, task] of tasks.entries()) {
          const group: Rollout[] = [];
          for (let gi = 0; gi < c.groupSize; gi++) {
            const seed = mix32(c.seed ^ mix32(it * 65536 + ti * 256 + gi));
            group.push(
              await rollout({
                net,
                pool: o.pool,
                task,
                seed,
                runners: o.runners,
                maxSteps: c.maxSteps,
                temperature: c.temperature,
                greedy: false,
                intermediate: c.intermediate,
                rewards: c.actionReward,
              }),
            );
          }
          groups.push(group);
        }
      } finally {
        net.dispose();
      }
      const adv = advantages(c, groups, baseline);
      baseline = adv.baseline;
      const all = groups.flat();
      const stats: RolloutStats = {
        meanReward: mean(adv.rewards.flat()),
        accuracy: mean(all.map((r) => (r.correct === true ? 1 : 0))),
        tokens: mean(all.map((r) => r.tokens)),
        steps: mean(all.map((r) => r.steps.length)),
      };
      iterations.push(stats);
      const full = learner.batch(
        all.map((r) => ({
          task: encodeTask(taskOfMasbench(r.task).query, current.config.hashDim),
          steps: r.steps,
          limits: {
            maxAgents: current.config.maxAgents,
            maxSteps: Math.min(c.maxSteps, current.config.maxSteps),
          },
        })),
      );
      const stepAdv = Float64Array.from(adv.steps.flat(2));
      const oldLogp = await learner.logProbs(full);
      const refLogp = c.klCoef > 0 ? await learner.logProbs(full, 'reference') : null;
      const rng = createRng(mix32(c.seed + 0x51ed + it));
      const rows = Array.from({ length: stepAdv.length }, (_, i) => i);
      for (let epoch = 0; epoch < c.epochs; epoch++) {
        const order = rng.shuffle(rows);
        for (let mb = 0; mb * c.minibatch < order.length; mb++) {
          const pick = order.slice(mb * c.minibatch, (mb + 1) * c.minibatch);
          const u = await learner.update(full, pick, oldLogp, refLogp, stepAdv);
          const m: UpdateMetrics = { iteration: it, epoch, minibatch: mb, ...u, ...stats };
          updates.push(m);
          o.onUpdate?.(m);
        }
      }
      current = await learner.snapshot(o.checkpoint.name);
    }
    const last = iterations[iterations.length - 1];
    const checkpoint = await learner.snapshot(`trained:${c.algo}:${c.preset}:${o.iterations}`, {
      trainedFrom: o.checkpoint.name,
      iterations: o.iterations,
      updates: updates.length,
      seed: c.seed,
      config: JSON.stringify(c).slice(0, 2000),
      lastMeanReward: last?.meanReward ?? 0,
      lastAccuracy: last?.accuracy ?? 0,
      lastTokens: last?.tokens ?? 0,
    });
    return { checkpoint, updates, iterations };
  } finally {
    learner.dispose();
  }
}
