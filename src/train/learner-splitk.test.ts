/**
 * A whole trainer update on WebGPU against the CPU backend with a minibatch (128) whose weight
 * gradients run split-K (src/gpu/kernels/matmul.wgsl with SPLIT_K = 1): the learner's packed rows make K the
 * live rows, and split-K sums them in chunks of 64 (tolerance: docs/compute-core.md).
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

describe('a trainer update with split-K weight gradients', () => {
  let gpu: BackendChoice;
  beforeAll(async () => {
    gpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
  });
  afterAll(() => {
    expect(gpu.ctx?.errors ?? []).toEqual([]);
    gpu.ctx?.dispose();
  });

  it('gives the CPU backend’s log-probabilities, loss, gradient norm and update on WebGPU', async () => {
    expect(gpu.backend).toBe('webgpu');
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 128, maxSteps: 6 });
    const net = await PolicyNetwork.cpu(cp);
    const episodes: EpisodeSteps[] = [];
    let steps = 0;
    for (const [i, task] of drawTasks(PRESET_TABLE.mixed, 5, 60, 'train').entries()) {
      if (steps >= 140) break;
      const r = await rollout({
        net,
        pool: DEFAULT_POOL,
        task,
        seed: 300 + i,
        runners,
        maxSteps: 6,
        temperature: 1,
        greedy: false,
        intermediate: true,
        rewards: config.actionReward,
      });
      steps += r.steps.length;
      episodes.push({
        task: encodeTask(taskOfMasbench(task).query, cp.config.hashDim),
        steps: r.steps,
        limits: { maxAgents: cp.config.maxAgents, maxSteps: 6 },
      });
    }
    net.dispose();
    const ctx = gpu.ctx;
    if (!ctx) throw new Error('no WebGPU context');
    // Which pipelines the update dispatches, and with how many workgroups (pipeline labels are
    // `kernel|constants`, pipelines.ts).
    const seen: { kernel: string; wg: number[] }[] = [];
    const pass = ctx.device.createCommandEncoder().beginComputePass();
    const proto = Object.getPrototypeOf(pass) as GPUComputePassEncoder;
    pass.end();
    const { setPipeline, dispatchWorkgroups } = proto;
    let current = '';
    const run = async (choice: BackendChoice) => {
      const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
      const full = learner.batch(episodes);
      const old = await learner.logProbs(full);
      const adv = Float64Array.from(old, (_, i) => ((i * 7) % 5) - 2);
      const pick = Array.from({ length: Math.min(128, full.batch) }, (_, i) => full.batch - 1 - i);
      proto.setPipeline = function (this: GPUComputePassEncoder, p: GPUComputePipeline) {
        current = p.label.split('|')[0] ?? '';
        setPipeline.call(this, p);
      };
      proto.dispatchWorkgroups = function (this: GPUComputePassEncoder, x: number, y?: number, z?: number) {
        seen.push({ kernel: current, wg: [x, y ?? 1, z ?? 1] });
        dispatchWorkgroups.call(this, x, y, z);
      };
      let stats;
      try {
        stats = await learner.update(full, pick, old, old, adv);
      } finally {
        proto.setPipeline = setPipeline;
        proto.dispatchWorkgroups = dispatchWorkgroups;
      }
      const after = await learner.logProbs(full);
      learner.dispose();
      return { rows: full.batch, old, stats, after };
    };
    const c = await run(cpu);
    const g = await run(gpu);
    // Split-K ran, over at least two chunks of live rows (64 rows each).
    const split = seen.filter((d) => d.kernel === 'matmul_splitk');
    expect(split.length).toBeGreaterThan(0);
    expect(Math.max(...split.map((d) => d.wg[2] as number))).toBeGreaterThanOrEqual(2);
    expect(seen.filter((d) => d.kernel === 'matmul_splitk_sum').length).toBe(split.length);
    expect(c.rows).toBeGreaterThanOrEqual(128);
    for (let i = 0; i < c.rows; i++) {
      expect(Math.abs((g.old[i] as number) - (c.old[i] as number))).toBeLessThan(1e-4);
      expect(Math.abs((g.after[i] as number) - (c.after[i] as number))).toBeLessThan(1e-3);
    }
    expect(Math.abs(g.stats.loss - c.stats.loss)).toBeLessThan(1e-4);
    expect(Math.abs(g.stats.gradNorm - c.stats.gradNorm) / c.stats.gradNorm).toBeLessThan(1e-3);
    expect(c.after.some((x, i) => Math.abs(x - (c.old[i] as number)) > 1e-3)).toBe(true);
  });
});
