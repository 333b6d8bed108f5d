import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import { DEFAULT_POOL, encodeTask, randomCheckpoint, type PolicyCheckpoint } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Learner } from './learner.ts';
import { ppoObjective } from './objective.ts';
import { PRESET_TABLE, drawTasks } from './presets.ts';
import { rollout, type RunnersFor } from './rollout.ts';
import { Trainer, train } from './loop.ts';
import { snapshotFromJson, snapshotToJson } from './snapshot.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const tiny = (): PolicyCheckpoint =>
  randomCheckpoint(DEFAULT_POOL, 3, { hidden: 8, hashDim: 16, maxAgents: 4, maxSteps: 5, graphHidden: 4 });
// A stand-in for the simulator: two or more agents answer correctly, each agent costs 1000 tokens.
const runners: RunnersFor = () => ({
  intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
  final: (trace) =>
    Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 * trace.design.agents.length }),
});
const config = trainConfig({
  tasksPerIteration: 2,
  groupSize: 2,
  minibatch: 8,
  epochs: 2,
  maxSteps: 5,
  lr: 0.01,
});

describe('train', () => {
  it('gives bit-identical metrics for the same seed and config on the CPU backend', async () => {
    const run = () =>
      train({ checkpoint: tiny(), pool: DEFAULT_POOL, config, choice: cpu, runners, iterations: 2 });
    const a = await run();
    const b = await run();
    expect(a.updates.length).toBeGreaterThan(1);
    expect(JSON.stringify(a.updates)).toBe(JSON.stringify(b.updates));
    expect(a.checkpoint.params).toEqual(b.checkpoint.params);
    expect(a.checkpoint.params['node.b2']).not.toEqual(tiny().params['node.b2']);
    expect(a.checkpoint.meta?.iterations).toBe(2);
    for (const u of a.updates) expect(Number.isFinite(u.loss) && Number.isFinite(u.gradNorm)).toBe(true);
  });

  it('resumes from a snapshot (through its JSON form) bit-identically', async () => {
    const opts = { start: tiny(), pool: DEFAULT_POOL, config, choice: cpu, runners };
    const straight = await Trainer.create(opts);
    await straight.iterate();
    await straight.iterate();
    const want = await straight.snapshot();
    straight.dispose();

    const first = await Trainer.create(opts);
    await first.iterate();
    const mid = snapshotFromJson(snapshotToJson(await first.snapshot()));
    first.dispose();
    if (!mid.ok) throw new Error(mid.problems.join('; '));
    expect(mid.snapshot.iteration).toBe(1);
    const resumed = await Trainer.create({ ...opts, resume: mid.snapshot });
    await resumed.iterate();
    const got = await resumed.snapshot();
    resumed.dispose();
    expect(got.iteration).toBe(2);
    expect(JSON.stringify(got.history)).toBe(JSON.stringify(want.history));
    expect(got.checkpoint.params).toEqual(want.checkpoint.params);
    expect(Array.from(got.optimizer?.m ?? [])).toEqual(Array.from(want.optimizer?.m ?? []));
    // Resuming without the Adam moments does not continue the same run.
    const cold = await Trainer.create({ ...opts, resume: { ...mid.snapshot, optimizer: null } });
    await cold.iterate();
    const coldParams = (await cold.snapshot()).checkpoint.params;
    cold.dispose();
    expect(coldParams).not.toEqual(want.checkpoint.params);
  });

  it('samples the same rollouts batched as one episode at a time (same metrics, bit for bit)', async () => {
    const run = async (sampling: 'batched' | 'sequential') => {
      const t = await Trainer.create({
        start: tiny(),
        pool: DEFAULT_POOL,
        config,
        choice: cpu,
        runners,
        sampling,
      });
      await t.iterate();
      await t.iterate();
      const snap = await t.snapshot();
      t.dispose();
      return snap;
    };
    const batched = await run('batched');
    const sequential = await run('sequential');
    expect(JSON.stringify(batched.history)).toBe(JSON.stringify(sequential.history));
    expect(batched.checkpoint.params).toEqual(sequential.checkpoint.params);
  });

  it('trains w/o JPSS deterministically, and differently from JPSS', async () => {
    const blind = trainConfig({ ...config, jpss: false });
    const run = (c: typeof config) =>
      train({ checkpoint: tiny(), pool: DEFAULT_POOL, config: c, choice: cpu, runners, iterations: 2 });
    const a = await run(blind);
    const b = await run(blind);
    const j = await run(config);
    expect(JSON.stringify(a.updates)).toBe(JSON.stringify(b.updates));
    expect(a.checkpoint.params).toEqual(b.checkpoint.params);
    expect(JSON.stringify(a.updates)).not.toBe(JSON.stringify(j.updates));
    expect(a.updates[0]?.ratioMin).toBe(1);
    // The checkpoint says it was trained w/o JPSS, and opens with the role-blind edge head.
    expect(a.checkpoint.meta?.jpss).toBe(false);
    expect(j.checkpoint.meta?.jpss).toBe(true);
    const { PolicyNetwork } = await import('../policy/index.ts');
    const opened = await PolicyNetwork.cpu(a.checkpoint);
    expect(opened.jpss).toBe(false);
    opened.dispose();
    const forced = await PolicyNetwork.cpu(a.checkpoint, { jpss: true });
    expect(forced.jpss).toBe(true);
    forced.dispose();
  });

  it('w/o JPSS, the learner scores a step with the role-blind head that sampled it', async () => {
    const { PolicyNetwork } = await import('../policy/index.ts');
    const cp = tiny();
    const tasks = drawTasks(PRESET_TABLE.mixed, 5, 3, 'train');
    const logpGap = async (sampleJpss: boolean, learnJpss: boolean): Promise<number> => {
      const net = await PolicyNetwork.cpu(cp, { jpss: sampleJpss });
      const rolls = [];
      for (const [i, task] of tasks.entries())
        rolls.push(
          await rollout({
            net,
            pool: DEFAULT_POOL,
            task,
            seed: i + 40,
            runners,
            maxSteps: 5,
            temperature: 1,
            greedy: false,
            intermediate: true,
            rewards: config.actionReward,
          }),
        );
      net.dispose();
      const learner = await Learner.create(
        cp,
        cp,
        DEFAULT_POOL,
        trainConfig({ ...config, jpss: learnJpss }),
        cpu,
      );
      const full = learner.batch(
        rolls.map((r) => ({
          task: encodeTask(taskOfMasbench(r.task).query, cp.config.hashDim),
          steps: r.steps,
          limits: { maxAgents: 4, maxSteps: 5 },
        })),
      );
      const lp = await learner.logProbs(full);
      learner.dispose();
      const recorded = rolls.flatMap((r) => r.steps.map((s) => s.logProb ?? NaN));
      return Math.max(...recorded.map((x, i) => Math.abs(x - (lp[i] as number))));
    };
    expect(await logpGap(false, false)).toBeLessThan(1e-4);
    expect(await logpGap(true, true)).toBeLessThan(1e-4);
    // A learner that saw the role would score the blind sampler's steps differently.
    expect(await logpGap(false, true)).toBeGreaterThan(1e-3);
  });

  it('times the rollouts, the update and its phases with an injected clock, and keeps them in a snapshot', async () => {
    // A clock that moves 1 ms per reading: every phase is the count of readings between its ends.
    let t = 0;
    const trainer = await Trainer.create({
      start: tiny(),
      pool: DEFAULT_POOL,
      config,
      choice: cpu,
      runners,
      clock: () => t++,
    });
    const m = await trainer.iterate();
    const tm = m.timings;
    if (!tm?.phases) throw new Error('no timings');
    const p = tm.phases;
    expect(tm.rolloutMs).toBe(1);
    for (const v of [p.encodeMs, p.oldLogpMs, p.stepsMs, p.readBackMs]) expect(v).toBe(1);
    expect(p.encodeMs + p.oldLogpMs + p.stepsMs + p.readBackMs).toBe(tm.updateMs);
    const back = snapshotFromJson(snapshotToJson(await trainer.snapshot()));
    if (!back.ok) throw new Error(back.problems.join('; '));
    expect(back.snapshot.history[0]?.timings).toEqual(tm);
    trainer.dispose();
  });

  it('rejects a damaged snapshot with a clear problem', async () => {
    const t = await Trainer.create({ start: tiny(), pool: DEFAULT_POOL, config, choice: cpu, runners });
    await t.iterate();
    const text = snapshotToJson(await t.snapshot());
    t.dispose();
    expect(snapshotFromJson(text).ok).toBe(true);
    const broken = JSON.parse(text) as { optimizer: { m: string }; config: { lr: number } };
    broken.optimizer.m = broken.optimizer.m.slice(0, 8);
    const r1 = snapshotFromJson(JSON.stringify(broken));
    expect(r1.ok ? [] : r1.problems.join()).toMatch(/optimizer/);
    const bad = JSON.parse(text) as { config: { lr: number } };
    bad.config.lr = -1;
    const r2 = snapshotFromJson(JSON.stringify(bad));
    expect(r2.ok ? [] : r2.problems.join()).toMatch(/config\.lr/);
    expect(snapshotFromJson('{').ok).toBe(false);
  });

  it('backpropagates the PPO loss exactly (finite differences on a tiny network)', async () => {
    const c = trainConfig({ ...config, entropyCoef: 0, klCoef: 0.5, clipEps: 0.1 });
    const cp = tiny();
    const tasks = drawTasks(PRESET_TABLE.mixed, 7, 2, 'train');
    const { PolicyNetwork } = await import('../policy/index.ts');
    const net = await PolicyNetwork.cpu(cp);
    const rolls = [];
    for (const [i, task] of tasks.entries())
      rolls.push(
        await rollout({
          net,
          pool: DEFAULT_POOL,
          task,
          seed: i,
          runners,
          maxSteps: 5,
          temperature: 1,
          greedy: false,
          intermediate: true,
          rewards: c.actionReward,
        }),
      );
    net.dispose();
    const episodes = rolls.map((r) => ({
      task: encodeTask(taskOfMasbench(r.task).query, cp.config.hashDim),
      steps: r.steps,
      limits: { maxAgents: 4, maxSteps: 5 },
    }));
    const learner = await Learner.create(cp, cp, DEFAULT_POOL, c, cpu);
    const full = learner.batch(episodes);
    const pick = Array.from({ length: Math.min(8, full.batch) }, (_, i) => i);
    // An "old" policy and a reference that differ from θ, so ratio, clip and KL all take part.
    const old = Float64Array.from(await learner.logProbs(full), (x, i) => x + (i % 3) * 0.08 - 0.08);
    const ref = Float64Array.from(old, (x, i) => x + 0.05 * ((i % 2) * 2 - 1));
    const adv = Float64Array.from(old, (_, i) => ((i * 7) % 5) - 2);
    await learner.update(full, pick, old, ref, adv, false);
    const grad = await learner.model.readGrad(learner.graph.params['node.b2'] as never);
    learner.dispose();
    const lossAt = async (k: number, d: number): Promise<number> => {
      const b2 = Array.from(cp.params['node.b2'] as number[]);
      b2[k] = (b2[k] as number) + d;
      const l = await Learner.create(
        { ...cp, params: { ...cp.params, 'node.b2': b2 } },
        cp,
        DEFAULT_POOL,
        c,
        cpu,
      );
      const lp = await l.logProbs(full);
      l.dispose();
      const at = (xs: Float64Array): number[] => pick.map((i) => xs[i] as number);
      return ppoObjective({
        logp: at(lp),
        oldLogp: at(old),
        refLogp: at(ref),
        advantages: at(adv),
        weights: pick.map(() => 1),
        clipEps: c.clipEps,
        klCoef: c.klCoef,
      }).loss;
    };
    const h = 1e-3;
    let checked = 0;
    for (let k = 0; k < grad.length; k++) {
      const fd = ((await lossAt(k, h)) - (await lossAt(k, -h))) / (2 * h);
      expect(grad[k]).toBeCloseTo(fd, 2);
      if (Math.abs(fd) > 1e-2) checked++;
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe('wilson', () => {
  it('matches the 95% score interval by hand', async () => {
    const { wilson } = await import('./evaluate.ts');
    // k = 8, n = 10: centre 0.7193, half-width 0.2318.
    const [lo, hi] = wilson(8, 10);
    expect(lo).toBeCloseTo(0.4902, 3);
    expect(hi).toBeCloseTo(0.9433, 3);
    expect(wilson(0, 0)).toEqual([0, 1]);
  });
});
