/**
 * Real training data for the benchmark: constructions sampled from a checkpoint on the `mixed`
 * preset's train-split tasks, executed by the simulated sub-agents (the runners `baton train`
 * uses), scored with the trainer's HRPO advantages, and replayed into one `TrainingBatch` — what
 * one trainer iteration hands to `Learner.update`, with as many groups as it takes to fill `rows`.
 */
import { simulatedRunners } from '../../src/executor/train-runners.ts';
import { mix32 } from '../../src/core/rng.ts';
import { taskOfMasbench } from '../../src/masbench/index.ts';
import {
  PolicyNetwork,
  encodeTask,
  trainingBatch,
  type PolicyCheckpoint,
  type RolePool,
  type TrainingBatch,
} from '../../src/policy/index.ts';
import {
  PRESET_TABLE,
  advantages,
  drawTasks,
  rollout,
  type Rollout,
  type TrainConfig,
} from '../../src/train/index.ts';

export interface SampledBatch {
  full: TrainingBatch;
  /** HRPO advantage per row of `full`. */
  advantages: Float64Array;
  episodes: number;
}

export async function sampleBatch(
  checkpoint: PolicyCheckpoint,
  pool: RolePool,
  config: TrainConfig,
  rows: number,
  seed: number,
): Promise<SampledBatch> {
  const net = await PolicyNetwork.cpu(checkpoint);
  const groups: Rollout[][] = [];
  let steps = 0;
  try {
    for (let round = 0; steps < rows; round++) {
      const tasks = drawTasks(PRESET_TABLE.mixed, mix32(seed + round), config.tasksPerIteration, 'train');
      for (const [ti, task] of tasks.entries()) {
        const group: Rollout[] = [];
        for (let gi = 0; gi < config.groupSize; gi++) {
          const r = await rollout({
            net,
            pool,
            task,
            seed: mix32(seed ^ mix32(round * 65536 + ti * 256 + gi)),
            runners: simulatedRunners,
            maxSteps: config.maxSteps,
            temperature: config.temperature,
            greedy: false,
            intermediate: config.intermediate,
            rewards: config.actionReward,
          });
          steps += r.steps.length;
          group.push(r);
        }
        groups.push(group);
      }
    }
  } finally {
    net.dispose();
  }
  const adv = advantages(config, groups, null);
  const cfg = checkpoint.config;
  const full = trainingBatch(
    cfg,
    pool,
    groups.flat().map((r) => ({
      task: encodeTask(taskOfMasbench(r.task).query, cfg.hashDim),
      steps: r.steps,
      limits: { maxAgents: cfg.maxAgents, maxSteps: Math.min(config.maxSteps, cfg.maxSteps) },
    })),
  );
  return { full, advantages: Float64Array.from(adv.steps.flat(2)), episodes: groups.flat().length };
}
