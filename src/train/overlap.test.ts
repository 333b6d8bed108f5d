import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { DEFAULT_POOL, randomCheckpoint, type PolicyCheckpoint } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Trainer, type TrainerOptions } from './loop.ts';
import { overlapped } from './overlap.ts';
import type { RunnersFor } from './rollout.ts';

/** A step whose result arrives when the test says so. */
function deferred(): { p: Promise<number>; resolve: (v: number) => void; reject: (e: Error) => void } {
  let resolve!: (v: number) => void;
  let reject!: (e: Error) => void;
  const p = new Promise<number>((a, b) => {
    resolve = a;
    reject = b;
  });
  return { p, resolve, reject };
}

describe('overlapped', () => {
  it('starts the next step before the last is handed on, keeps at most `depth` pending, in order', async () => {
    const log: string[] = [];
    const steps = [0, 1, 2, 3].map(() => deferred());
    const run = overlapped(
      4,
      (i) => {
        log.push(`start ${i}`);
        return (steps[i] as ReturnType<typeof deferred>).p;
      },
      (r, i) => log.push(`done ${i}=${r}`),
    );
    await Promise.resolve();
    expect(log).toEqual(['start 0', 'start 1']);
    steps[1]?.resolve(11); // out of order: handed on only after step 0
    await new Promise((r) => setTimeout(r, 0));
    expect(log).toEqual(['start 0', 'start 1']);
    steps[0]?.resolve(10);
    steps[2]?.resolve(12);
    steps[3]?.resolve(13);
    await run;
    expect(log).toEqual([
      'start 0',
      'start 1',
      'done 0=10',
      'start 2',
      'done 1=11',
      'start 3',
      'done 2=12',
      'done 3=13',
    ]);
  });

  it('with depth 1 awaits each step before starting the next', async () => {
    const log: string[] = [];
    await overlapped(
      3,
      async (i) => {
        log.push(`start ${i}`);
        await Promise.resolve();
        return i;
      },
      (_, i) => log.push(`done ${i}`),
      1,
    );
    expect(log).toEqual(['start 0', 'done 0', 'start 1', 'done 1', 'start 2', 'done 2']);
  });

  it('rejects with the first failure and starts nothing once it is seen', async () => {
    const started: number[] = [];
    const run = overlapped(
      5,
      (i) => {
        started.push(i);
        return i === 1 ? Promise.reject(new Error('step 1 failed')) : Promise.resolve(i);
      },
      () => undefined,
    );
    await expect(run).rejects.toThrow('step 1 failed');
    expect(started).toEqual([0, 1, 2]);
    await expect(
      overlapped(
        1,
        () => Promise.resolve(1),
        () => undefined,
        0,
      ),
    ).rejects.toThrow('at least 1');
  });
});

describe('a trainer whose updates overlap', () => {
  // The same two iterations with each log π pass and update awaited before the next starts, and
  // with the next started first (the default): the same numbers on every backend, bit for bit;
  // likewise with log π a minibatch per pass, with the other sampler edge mode, with three steps
  // in flight and with the sampler in two streams.
  const tiny = (): PolicyCheckpoint =>
    randomCheckpoint(DEFAULT_POOL, 3, { hidden: 8, hashDim: 16, maxAgents: 4, maxSteps: 5, graphHidden: 4 });
  const runners: RunnersFor = () => ({
    intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
    final: (trace) =>
      Promise.resolve({
        correct: trace.design.agents.length >= 2,
        tokens: 1000 * trace.design.agents.length,
      }),
  });
  const config = trainConfig({ tasksPerIteration: 3, groupSize: 3, minibatch: 4, epochs: 2, maxSteps: 5 });
  let webgpu: BackendChoice | null = null;
  beforeAll(async () => {
    webgpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
  });
  afterAll(() => webgpu?.ctx?.dispose());

  it.each(['cpu', 'wasm', 'webgpu'] as const)(
    'gives what it gives awaiting each first on %s',
    async (backend) => {
      const choice: BackendChoice =
        backend === 'webgpu'
          ? (webgpu as BackendChoice)
          : { backend, reason: 'test', adapter: null, ctx: null };
      expect(choice.backend).toBe(backend);
      const run = async (
        options: Pick<TrainerOptions, 'overlap' | 'passRows' | 'samplerEdgeMode' | 'samplerStreams'>,
      ) => {
        const updates: number[] = [];
        const t = await Trainer.create({
          start: tiny(),
          pool: DEFAULT_POOL,
          config,
          choice,
          runners,
          ...options,
          onUpdate: (u) => updates.push(u.loss, u.gradNorm, u.kl),
        });
        await t.iterate();
        await t.iterate();
        const snap = await t.snapshot();
        t.dispose();
        return { updates, history: JSON.stringify(snap.history), params: snap.checkpoint.params };
      };
      const one = await run({ overlap: 1 });
      const two = await run({ overlap: 2 });
      expect(one.updates.length).toBeGreaterThan(6);
      expect(two).toEqual(one);
      // The other options that change speed, not numbers: log π a minibatch per pass, and the
      // sampler's edge mode other than the backend's default (fused on WebGPU, two-pass elsewhere).
      expect(await run({ passRows: 0 })).toEqual(one);
      expect(await run({ samplerEdgeMode: backend === 'webgpu' ? 'two-pass' : 'fused' })).toEqual(one);
      // Three steps in flight, and the sampler's episodes in two streams (on SwiftShader its plans
      // for the streams' smaller batches give a row the bits of the whole batch).
      expect(await run({ overlap: 3 })).toEqual(one);
      expect(await run({ samplerStreams: 2 })).toEqual(one);
    },
  );

  it('reads the parameter arena with the last update of an iteration on WebGPU, not on its own', async () => {
    const choice = webgpu as BackendChoice;
    let updates = 0;
    const t = await Trainer.create({
      start: tiny(),
      pool: DEFAULT_POOL,
      config,
      choice,
      // Rollouts on the CPU: every read-back counted below is the learner's.
      samplerChoice: { backend: 'cpu', reason: 'test', adapter: null, ctx: null },
      runners,
      onUpdate: () => updates++,
    });
    await t.iterate();
    const ctx = choice.ctx;
    if (!ctx) throw new Error('no WebGPU context');
    ctx.resetCounters();
    updates = 0;
    await t.iterate();
    const c = ctx.resetCounters();
    // The old and the reference log π (one pass over the batch, both policies in one graph), then
    // one read-back per update.
    expect(updates).toBeGreaterThan(2);
    expect(c.readbacks).toBe(1 + updates);
    expect(c.submissions).toBe(1 + updates);
    // The checkpoint the trainer took from that arena moved with the updates (learner.test.ts checks
    // such an arena against the device's parameters).
    const snap = await t.snapshot();
    t.dispose();
    expect(snap.checkpoint.params).not.toEqual(tiny().params);
  });
});
