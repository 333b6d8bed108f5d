/**
 * The learner feeds packed minibatches (each step's agents, links and edge rows only, the rest
 * padding: src/policy/pack.ts). The CPU backend skips the padding; WebGPU computes it, and must
 * get the same log-probabilities and the same update.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  encodeTask,
  priorCheckpoint,
  type EpisodeSteps,
} from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Learner } from './learner.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const runners: RunnersFor = () => ({
  intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
  final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 }),
});

describe('the learner on WebGPU (Dawn on SwiftShader) and on the CPU', () => {
  let gpu: BackendChoice;
  beforeAll(async () => {
    gpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
  });
  afterAll(() => {
    expect(gpu.ctx?.errors ?? []).toEqual([]);
    gpu.ctx?.dispose();
  });

  it('give the same log-probabilities and the same update on packed minibatches', async () => {
    expect(gpu.backend).toBe('webgpu');
    const cp = priorCheckpoint(DEFAULT_POOL);
    // A minibatch of 16 over about 20 steps: one full minibatch and one padded one.
    const config = trainConfig({ minibatch: 16, maxSteps: 6 });
    const net = await PolicyNetwork.cpu(cp);
    const episodes: EpisodeSteps[] = [];
    for (const [i, task] of drawTasks(PRESET_TABLE.mixed, 3, 4, 'train').entries()) {
      const r = await rollout({
        net,
        pool: DEFAULT_POOL,
        task,
        seed: 70 + i,
        runners,
        maxSteps: 6,
        temperature: 1,
        greedy: false,
        intermediate: true,
        rewards: config.actionReward,
      });
      episodes.push({
        task: encodeTask(taskOfMasbench(task).query, cp.config.hashDim),
        steps: r.steps,
        limits: { maxAgents: cp.config.maxAgents, maxSteps: 6 },
      });
    }
    net.dispose();
    const run = async (choice: BackendChoice) => {
      const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
      const full = learner.batch(episodes);
      const old = await learner.logProbs(full);
      const adv = Float64Array.from(old, (_, i) => ((i * 7) % 5) - 2);
      const pick = Array.from({ length: Math.min(13, full.batch) }, (_, i) => full.batch - 1 - i);
      const stats = await learner.update(full, pick, old, old, adv);
      const after = await learner.logProbs(full);
      learner.dispose();
      return { rows: full.batch, old, stats, after };
    };
    const c = await run(cpu);
    const g = await run(gpu);
    expect(c.rows).toBeGreaterThan(16);
    for (let i = 0; i < c.rows; i++) {
      expect(Math.abs((g.old[i] as number) - (c.old[i] as number))).toBeLessThan(1e-4);
      expect(Math.abs((g.after[i] as number) - (c.after[i] as number))).toBeLessThan(1e-3);
    }
    expect(Math.abs(g.stats.loss - c.stats.loss)).toBeLessThan(1e-4);
    expect(Math.abs(g.stats.edgeEntropy - c.stats.edgeEntropy)).toBeLessThan(1e-4);
    expect(Math.abs(g.stats.gradNorm - c.stats.gradNorm) / c.stats.gradNorm).toBeLessThan(1e-3);
    // The update moved the policy (the comparison is not of two unchanged copies).
    expect(c.after.some((x, i) => Math.abs(x - (c.old[i] as number)) > 1e-3)).toBe(true);
  });
});
