/**
 * The old-policy and reference log-probabilities of an iteration come from one pass over the rows
 * that packs each minibatch once for both graphs (`Learner.oldAndReference`): the numbers must be
 * those of the two separate passes (`logProbs`), bit for bit. Over more rows than a minibatch the
 * passes run on forward-only graphs of up to `passRows` rows: on every backend their numbers are
 * those of minibatch passes on the training graph, bit for bit, before and after updates and after
 * the training graph's state was imported, and on WebGPU they take fewer submissions: one graph
 * holds both policies when their parameters are shaped alike, one submission per pass for both.
 */
import { describe, expect, it } from 'vitest';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  encodeTask,
  policyConfig,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
  type EpisodeSteps,
} from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Learner } from './learner.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const runners: RunnersFor = () => ({
  intermediate: (design) =>
    Promise.resolve({ answer: `${design.agents.length}`, correct: design.agents.length >= 2 }),
  final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 }),
});

async function episodes(cp: ReturnType<typeof priorCheckpoint>, n: number): Promise<EpisodeSteps[]> {
  const net = await PolicyNetwork.cpu(cp);
  const out: EpisodeSteps[] = [];
  for (const [i, task] of drawTasks(PRESET_TABLE.mixed, 11, n, 'train').entries()) {
    const r = await rollout({
      net,
      pool: DEFAULT_POOL,
      task,
      seed: 900 + i,
      runners,
      maxSteps: 8,
      temperature: 1.3,
      greedy: false,
      intermediate: true,
      rewards: trainConfig({}).actionReward,
    });
    out.push({
      task: encodeTask(taskOfMasbench(task).query, cp.config.hashDim),
      steps: r.steps,
      limits: { maxAgents: cp.config.maxAgents, maxSteps: 8 },
    });
  }
  net.dispose();
  return out;
}

const bits = (a: Float64Array): string => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('hex');

describe('the learner’s old-policy and reference passes', () => {
  it('give the log-probabilities of two separate passes, bit for bit, after an update moved the policy', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0.05 });
    const eps = await episodes(cp, 6);
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, cpu);
    try {
      const full = learner.batch(eps);
      expect(full.batch).toBeGreaterThan(2 * config.minibatch);
      const first = await learner.oldAndReference(full);
      // Current and reference parameters are one checkpoint so far: the two passes agree.
      expect(bits(first.old)).toBe(bits(first.ref as Float64Array));
      const pick = Array.from({ length: 8 }, (_, i) => i + 3);
      await learner.update(
        full,
        pick,
        first.old,
        first.ref,
        Float64Array.from(first.old, (_, i) => (i % 5) - 2),
      );
      const both = await learner.oldAndReference(full);
      const old = await learner.logProbs(full);
      const ref = await learner.logProbs(full, 'reference');
      expect(bits(both.old)).toBe(bits(old));
      expect(bits(both.ref as Float64Array)).toBe(bits(ref));
      expect(bits(old)).not.toBe(bits(ref));
      // The snapshot's parameters are the arena's numbers (as Array.from reads them).
      const snap = await learner.snapshot('after');
      for (const [k, t] of Object.entries(learner.graph.params))
        expect(snap.params[k]).toEqual(Array.from(await learner.model.read(t)));
      expect(snap.params).not.toEqual(cp.params);
    } finally {
      learner.dispose();
    }
  });

  it('without a KL term there is no reference pass', async () => {
    const cp = priorCheckpoint(DEFAULT_POOL);
    const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0 });
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, cpu);
    try {
      const full = learner.batch(await episodes(cp, 2));
      const both = await learner.oldAndReference(full);
      expect(both.ref).toBeNull();
      expect(bits(both.old)).toBe(bits(await learner.logProbs(full)));
    } finally {
      learner.dispose();
    }
  });
});

describe('log π passes over more rows than a minibatch', () => {
  const backends: [string, () => Promise<BackendChoice>][] = [
    ['cpu', () => Promise.resolve(cpu)],
    ['wasm', () => Promise.resolve({ backend: 'wasm', reason: 'test', adapter: null, ctx: null })],
    ['webgpu', async () => chooseBackend('webgpu', { gpu: await nodeGpu() })],
  ];
  it.each(backends)(
    'on %s give the numbers of minibatch passes, bit for bit, in fewer passes',
    async (_, make) => {
      const choice = await make();
      const cp = priorCheckpoint(DEFAULT_POOL);
      const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0.05 });
      const eps = await episodes(cp, 6);
      const learner = await Learner.create(cp, cp, DEFAULT_POOL, config, choice);
      try {
        const full = learner.batch(eps);
        expect(full.batch).toBeGreaterThan(2 * config.minibatch);
        // Both ways: pass graphs of up to 64 rows (one pass per graph here), and minibatches of 8.
        // The trainer reads the parameter arena after its updates (for the sampler); the pass
        // graphs take their parameters from that read, so a pass costs one submission per graph.
        const bothWays = async () => {
          await learner.arena();
          learner.passRows = 64;
          const counters = choice.ctx?.resetCounters();
          const wide = await learner.oldAndReference(full);
          const submissions = choice.ctx ? choice.ctx.resetCounters().submissions : null;
          learner.passRows = 0;
          const narrow = await learner.oldAndReference(full);
          expect(bits(wide.old)).toBe(bits(narrow.old));
          expect(bits(wide.ref as Float64Array)).toBe(bits(narrow.ref as Float64Array));
          // One graph holds both policies (buildPolicyGraphPair): one submission for both.
          if (counters) expect(submissions).toBe(1);
          return narrow;
        };
        const first = await bothWays();
        const adv = Float64Array.from(first.old, (_, i) => (i % 5) - 2);
        for (const start of [0, 8]) {
          const pick = Array.from({ length: 8 }, (_, i) => i + start);
          await learner.update(full, pick, first.old, first.ref, adv);
        }
        const moved = await bothWays();
        expect(bits(moved.old)).not.toBe(bits(first.old));
        // A state imported through `model` (a resumed trainer) reaches the pass graphs too.
        const state = await learner.model.exportState();
        learner.model.importState({ ...state, params: state.params.map((x) => x * 0.5) });
        const imported = await bothWays();
        expect(bits(imported.old)).not.toBe(bits(moved.old));
      } finally {
        learner.dispose();
        choice.ctx?.dispose();
      }
    },
  );
});

describe('log π passes with a reference of its own', () => {
  const backends: [string, () => Promise<BackendChoice>][] = [
    ['cpu', () => Promise.resolve(cpu)],
    ['wasm', () => Promise.resolve({ backend: 'wasm', reason: 'test', adapter: null, ctx: null })],
    ['webgpu', async () => chooseBackend('webgpu', { gpu: await nodeGpu() })],
    // With lanes products (a hardware adapter's plan): the pair's products that share an operand
    // may run as siblings, each with its own call's bits.
    [
      'webgpu with lanes products',
      async () => ({ ...(await chooseBackend('webgpu', { gpu: await nodeGpu() })), lanes: true }),
    ],
  ];
  const cp = priorCheckpoint(DEFAULT_POOL);
  // Shaped as `cp` (one graph holds both), and not: a smaller hidden layer (a graph each).
  const alike: PolicyCheckpoint = { ...randomCheckpoint(DEFAULT_POOL, 7), config: cp.config };
  const unlike = randomCheckpoint(DEFAULT_POOL, 8, { ...policyConfig(DEFAULT_POOL), hidden: 32 });
  const cases = backends.flatMap(([name, make]) =>
    (
      [
        ['shaped alike', alike, 1],
        ['shaped unlike', unlike, 2],
      ] as const
    ).map(([kind, ref, subs]) => [name, kind, make, ref, subs] as const),
  );
  it.each(cases)(
    'on %s, %s: the pass graphs give its log π of the minibatch passes, bit for bit',
    async (_, __, make, reference, subs) => {
      const choice = await make();
      const config = trainConfig({ minibatch: 8, maxSteps: 8, klCoef: 0.05 });
      const eps = await episodes(cp, 6);
      const learner = await Learner.create(cp, reference, DEFAULT_POOL, config, choice);
      try {
        const full = learner.batch(eps);
        await learner.arena();
        learner.passRows = 64;
        choice.ctx?.resetCounters();
        const wide = await learner.oldAndReference(full);
        const submissions = choice.ctx ? choice.ctx.resetCounters().submissions : null;
        // Each alone: a pass that reads one policy's log π of a pair prunes the other's.
        const oldAlone = await learner.logProbs(full);
        const refAlone = await learner.logProbs(full, 'reference');
        learner.passRows = 0;
        const narrow = await learner.oldAndReference(full);
        expect(bits(wide.old)).toBe(bits(narrow.old));
        expect(bits(wide.ref as Float64Array)).toBe(bits(narrow.ref as Float64Array));
        expect(bits(oldAlone)).toBe(bits(narrow.old));
        expect(bits(refAlone)).toBe(bits(narrow.ref as Float64Array));
        expect(bits(wide.old)).not.toBe(bits(wide.ref as Float64Array));
        if (submissions !== null) expect(submissions).toBe(subs);
      } finally {
        learner.dispose();
        choice.ctx?.dispose();
      }
    },
  );
});
