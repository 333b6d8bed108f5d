/**
 * The learner feeds packed minibatches (each step's agents, links and edge rows only, the rest
 * padding: src/policy/pack.ts). Both backends skip the padding (WebGPU: src/gpu/webgpu/live.ts), and must
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
async function sampleEpisodes(
  cp: ReturnType<typeof priorCheckpoint>,
  config: ReturnType<typeof trainConfig>,
  n: number,
): Promise<EpisodeSteps[]> {
  const net = await PolicyNetwork.cpu(cp);
  const episodes: EpisodeSteps[] = [];
  for (const [i, task] of drawTasks(PRESET_TABLE.mixed, 3, n + 1, 'train').entries()) {
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
  return episodes;
}

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

  // The graph layers' three products of x, the state's with three heads, the trunk's two of h: at
  // least 6 dispatches fewer per forward pass (in the log π passes and in the update's). Backward,
  // the grouped weight and input gradients of those products: at least 9 fewer per update.
  it.each([
    ['sibling products', 'siblings', 6, 6],
    ['grouped gradient products', 'gradGroups', 0, 9],
  ] as const)(
    'with lanes products, run %s a few to a dispatch on WebGPU, with the same bits',
    async (_what, option, perPass, perUpdate) => {
      const ctx = gpu.ctx;
      if (!ctx) throw new Error('no WebGPU context');
      const cp = priorCheckpoint(DEFAULT_POOL);
      const config = trainConfig({ minibatch: 16, maxSteps: 6, klCoef: 0.05 });
      const episodes = await sampleEpisodes(cp, config, 3);
      const run = async (on: boolean) => {
        // Lanes products, as on a hardware adapter; with and without the grouping.
        const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, {
          ...gpu,
          lanes: true,
          [option]: on,
        });
        learner.passRows = 0;
        const full = learner.batch(episodes);
        ctx.resetCounters();
        const old = await learner.logProbs(full);
        const passes = ctx.resetCounters();
        const adv = Float64Array.from(old, (_, i) => ((i * 3) % 5) - 2);
        const pick = Array.from({ length: 16 }, (_, i) => i);
        const stats = await learner.update(full, pick, old, old, adv);
        const update = ctx.resetCounters();
        const after = Array.from(await learner.arena());
        learner.dispose();
        return { old: Array.from(old), stats, after, dispatches: [passes.dispatches, update.dispatches] };
      };
      const [grouped, alone] = [await run(true), await run(false)];
      expect(grouped.old).toEqual(alone.old);
      expect(grouped.stats).toEqual(alone.stats);
      expect(grouped.after).toEqual(alone.after);
      const passes = Math.ceil(grouped.old.length / 16);
      expect((alone.dispatches[0] as number) - (grouped.dispatches[0] as number)).toBeGreaterThanOrEqual(
        perPass * passes,
      );
      expect((alone.dispatches[1] as number) - (grouped.dispatches[1] as number)).toBeGreaterThanOrEqual(
        perUpdate,
      );
    },
  );

  it('make one queue submission and one read-back per minibatch update and per log-probability pass on WebGPU', async () => {
    const ctx = gpu.ctx;
    if (!ctx) throw new Error('no WebGPU context');
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 16, maxSteps: 6, klCoef: 0.05 });
    const episodes = await sampleEpisodes(cp, config, 3);
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, gpu);
    // Passes of one minibatch each (the trainer's longer passes: learner-passes.test.ts).
    learner.passRows = 0;
    const full = learner.batch(episodes);
    // Counted at the device, below the compute core: every queue.submit and every mapAsync.
    const device = ctx.device;
    const seen = { submit: 0, map: 0 };
    const submit = device.queue.submit.bind(device.queue);
    device.queue.submit = (cbs) => {
      seen.submit += 1;
      submit(cbs);
    };
    const probe = device.createBuffer({ size: 4, usage: GPUBufferUsage.MAP_READ });
    const proto = Object.getPrototypeOf(probe) as GPUBuffer;
    const mapAsync = proto.mapAsync;
    proto.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
      seen.map += 1;
      return mapAsync.apply(this, args);
    };
    try {
      const pick = Array.from({ length: 16 }, (_, i) => i);
      const old = await learner.logProbs(full);
      const passes = Math.ceil(full.batch / 16);
      expect(seen).toEqual({ submit: passes, map: passes });
      const ref = await learner.logProbs(full, 'reference');
      const adv = Float64Array.from(old, (_, i) => ((i * 3) % 5) - 2);
      ctx.resetCounters();
      seen.submit = 0;
      seen.map = 0;
      const stats = await learner.update(full, pick, old, ref, adv);
      expect(seen).toEqual({ submit: 1, map: 1 });
      expect(ctx.counters.submissions).toBe(1);
      expect(ctx.counters.readbacks).toBe(1);
      // The fused plan (src/gpu/webgpu/plan-fuse.ts): 147 dispatches here, where the unfused plan
      // had 216 (225 at minibatch 64 and 256: docs/benchmarks.md).
      expect(ctx.counters.dispatches).toBeLessThanOrEqual(150);
      expect(Number.isFinite(stats.loss) && stats.gradNorm > 0).toBe(true);
      // The old and reference passes of a minibatch are both submitted before either read-back is
      // waited for, and (overlap 2, the default) the next minibatch's too; each pass still has its
      // own submission and read-back. With overlap 1 a minibatch's read-backs come first.
      expect(passes).toBeGreaterThanOrEqual(2);
      const events: string[] = [];
      device.queue.submit = (cbs) => {
        events.push('submit');
        submit(cbs);
      };
      proto.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
        return mapAsync.apply(this, args).then(() => {
          events.push('mapped');
          return undefined;
        });
      };
      const both = await learner.oldAndReference(full);
      expect(events.slice(0, 6)).toEqual(['submit', 'submit', 'submit', 'submit', 'mapped', 'mapped']);
      expect(events.filter((e) => e === 'submit')).toHaveLength(2 * passes);
      expect(events.filter((e) => e === 'mapped')).toHaveLength(2 * passes);
      events.length = 0;
      learner.overlap = 1;
      const oneByOne = await learner.oldAndReference(full);
      learner.overlap = 2;
      expect(events.slice(0, 6)).toEqual(['submit', 'submit', 'mapped', 'mapped', 'submit', 'submit']);
      expect(Array.from(oneByOne.old)).toEqual(Array.from(both.old));
      expect(Array.from(both.old)).toEqual(Array.from(await learner.logProbs(full)));
      expect(Array.from(both.ref ?? [])).toEqual(Array.from(await learner.logProbs(full, 'reference')));
      device.queue.submit = (cbs) => {
        seen.submit += 1;
        submit(cbs);
      };
      proto.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
        seen.map += 1;
        return mapAsync.apply(this, args);
      };
      // A snapshot reads the arenas (parameters, Adam's m and v) in one submission and one map, not
      // once per parameter.
      seen.submit = 0;
      seen.map = 0;
      const snap = await learner.snapshot('after');
      expect(seen).toEqual({ submit: 1, map: 1 });
      expect(Object.keys(snap.params).length).toBeGreaterThan(3);
      for (const [k, t] of Object.entries(learner.graph.params))
        expect(snap.params[k]).toEqual(Array.from(await learner.model.read(t)));
      // The last update of an iteration reads the arena in its own read-back: still one submission
      // and one map, and the snapshot after it (what the trainer takes) reads nothing more.
      seen.submit = 0;
      seen.map = 0;
      await learner.update(full, pick, old, ref, adv, true, true);
      expect(seen).toEqual({ submit: 1, map: 1 });
      const last = await learner.snapshot('last');
      expect(seen).toEqual({ submit: 1, map: 1 });
      expect(last.params).not.toEqual(snap.params);
      for (const [k, t] of Object.entries(learner.graph.params))
        expect(last.params[k]).toEqual(Array.from(await learner.model.read(t)));
    } finally {
      delete (device.queue as Partial<GPUQueue>).submit;
      proto.mapAsync = mapAsync;
      probe.destroy();
      learner.dispose();
    }
  });
});

describe('learner snapshots', () => {
  it('hold the parameters of their time, however late their arrays are first read', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 16, maxSteps: 6 });
    const episodes = await sampleEpisodes(cp, config, 3);
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, cpu);
    try {
      const full = learner.batch(episodes);
      const { old, ref } = await learner.oldAndReference(full);
      const adv = Float64Array.from(old, (_, i) => (i % 3) - 1);
      const pick = Array.from({ length: 16 }, (_, i) => i);
      await learner.update(full, pick, old, ref, adv);
      const now = async (): Promise<Record<string, number[]>> => {
        const out: Record<string, number[]> = {};
        for (const [k, t] of Object.entries(learner.graph.params))
          out[k] = Array.from(await learner.model.read(t));
        return out;
      };
      const want = await now();
      const early = await learner.snapshot('early');
      // From an arena given (kept as it is).
      const given = await learner.arena();
      const fromGiven = await learner.snapshot('given', { note: 'x' }, given);
      await learner.update(full, pick, old, ref, adv);
      // The update left the arena read before as it was: a later read gives a new one.
      expect(await learner.arena()).not.toBe(given);
      const later = await now();
      expect(later).not.toEqual(want);
      expect(early.params).toEqual(want);
      expect(fromGiven.params).toEqual(want);
      expect(fromGiven.meta).toEqual({ note: 'x' });
      expect((await learner.snapshot('later')).params).toEqual(later);
      expect(Object.keys(early)).toEqual(['format', 'name', 'config', 'roleVersion', 'params', 'meta']);
    } finally {
      learner.dispose();
    }
  });
});
