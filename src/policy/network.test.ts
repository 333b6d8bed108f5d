import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTask } from '../bench/masbench/index.ts';
import type { Task } from '../core/trace.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { CpuModel } from '../gpu/cpu/model.ts';
import { chooseBackend, type BackendChoice } from '../gpu/select.ts';
import { incompatibility, parseCheckpoint, serializeCheckpoint } from './checkpoint.ts';
import { replay, trainingBatch } from './batch.ts';
import { encodeTask } from './encoder.ts';
import { PolicyNetwork, buildPolicyGraph, randomCheckpoint } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './sample.ts';

const pool = DEFAULT_POOL;
const task = (axis: 'depth' | 'parallel', value: number, seed: number): Task => ({
  query: generateTask({ axis, value, seed }).question,
  groundTruth: null,
  source: { kind: 'custom' },
});

describe('checkpoints', () => {
  it('save → load round trip gives the same parameters and the same construction', async () => {
    const cp = randomCheckpoint(pool, 21);
    const back = parseCheckpoint(serializeCheckpoint(cp));
    if (!back.ok) throw new Error(JSON.stringify(back.errors));
    expect(back.value).toEqual(cp);
    const a = await construct({
      policy: await PolicyNetwork.cpu(cp),
      pool,
      task: task('depth', 5, 1),
      seed: 3,
    });
    const b = await construct({
      policy: await PolicyNetwork.cpu(back.value),
      pool,
      task: task('depth', 5, 1),
      seed: 3,
    });
    expect(b.steps).toEqual(a.steps);
    expect(
      incompatibility(
        cp,
        pool.roles.map((r) => r.name),
      ),
    ).toBeNull();
    expect(incompatibility(cp, ['Solver'])).toMatch(/made for roles/);
  });

  it('rejects bad JSON, wrong formats and wrong shapes with readable problems', () => {
    expect(parseCheckpoint('{')).toMatchObject({ ok: false, errors: [{ code: 'E_JSON' }] });
    expect(parseCheckpoint('{"format":"nope"}').ok).toBe(false);
    const cp = randomCheckpoint(pool, 1);
    const broken = { ...cp, params: { ...cp.params, 'node.b1': [1, 2, 3] } };
    const r = parseCheckpoint(JSON.stringify(broken));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toMatch(/node\.b1 has 3 values/);
  });
});

describe('edge modes', () => {
  it('fused (all roles in one pass) and two-pass give the same construction', async () => {
    for (const cp of [priorCheckpoint(pool), randomCheckpoint(pool, 12)]) {
      const fused = await PolicyNetwork.cpu(cp, { edgeMode: 'fused' });
      const two = await PolicyNetwork.cpu(cp, { edgeMode: 'two-pass' });
      expect([fused.edgeMode, two.edgeMode]).toEqual(['fused', 'two-pass']);
      for (const seed of [1, 2, 3]) {
        const t = task(seed % 2 === 0 ? 'depth' : 'parallel', 3 + seed, seed);
        const a = await construct({ policy: fused, pool, task: t, seed });
        const b = await construct({ policy: two, pool, task: t, seed });
        expect(b.steps).toEqual(a.steps);
      }
    }
  });
});

describe('the joint log-probability of the training graph equals the recorded one', () => {
  it('log π_node(a) + Σ log Bernoulli through pick / bernoulliLogProb / scatterAddRows, over two episodes', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 5));
    const cfg = net.checkpoint.config;
    const episodes = [];
    for (const [t, seed] of [
      [task('parallel', 4, 2), 1],
      [task('depth', 5, 3), 2],
    ] as const) {
      const c = await construct({ policy: net, pool, task: t, seed });
      episodes.push({ task: encodeTask(t.query, cfg.hashDim), steps: c.steps });
    }
    const tb = trainingBatch(cfg, pool, episodes);
    const pg = buildPolicyGraph(cfg, net.checkpoint.params, {
      batch: tb.batch,
      edgeRows: tb.edgeRows,
      logProb: true,
    });
    const m = new CpuModel(pg.graph);
    for (const [k, v] of Object.entries(tb.inputs)) m.setInput(k, v);
    await m.step();
    const joint = await m.read(pg.joint as NonNullable<typeof pg.joint>);
    const recorded = episodes.flatMap((e) => e.steps.map((st) => st.logProb as number));
    expect(joint.length).toBe(recorded.length);
    recorded.forEach((lp, b) => expect(joint[b]).toBeCloseTo(lp, 4));
  });

  it('replay refuses a trace made with another pool', () => {
    const step = {
      index: 0,
      action: {
        kind: 'add' as const,
        role: 'Juggler',
        agentId: 'juggler-1',
        agentType: 'CoTAgent' as const,
        links: [],
      },
      roleDistribution: [],
      edgeProbabilities: [],
      logProb: null,
      chooser: 'policy' as const,
    };
    expect(() => replay(pool, { maxAgents: 4, maxSteps: 8 }, [step])).toThrow(/not in the pool/);
  });
});

describe('WebGPU (Dawn on SwiftShader in Node) and CPU give the same construction', () => {
  let gpu: BackendChoice;
  beforeAll(async () => {
    gpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
  });
  afterAll(() => {
    expect(gpu.ctx?.errors ?? []).toEqual([]);
    gpu.ctx?.dispose();
  });

  it('same seed → same actions and links; probabilities within 1e-4', async () => {
    expect(gpu.backend).toBe('webgpu');
    for (const [cp, t, seed] of [
      [priorCheckpoint(pool), task('depth', 6, 3), 1],
      [priorCheckpoint(pool), task('parallel', 5, 4), 2],
      [randomCheckpoint(pool, 8), task('depth', 3, 5), 3],
    ] as const) {
      const onCpu = await construct({ policy: await PolicyNetwork.cpu(cp), pool, task: t, seed });
      const gnet = await PolicyNetwork.create(cp, gpu);
      expect(gnet.backend).toBe('webgpu');
      const onGpu = await construct({ policy: gnet, pool, task: t, seed });
      gnet.dispose();
      expect(onGpu.steps.map((s) => s.action)).toEqual(onCpu.steps.map((s) => s.action));
      onGpu.steps.forEach((s, k) => {
        const ref = onCpu.steps[k];
        s.roleDistribution.forEach((d, i) =>
          expect(Math.abs(d.p - (ref?.roleDistribution[i]?.p ?? NaN))).toBeLessThan(1e-4),
        );
        s.edgeProbabilities.forEach((e, i) =>
          expect(Math.abs(e.p - (ref?.edgeProbabilities[i]?.p ?? NaN))).toBeLessThan(1e-4),
        );
      });
      expect(onGpu.trace.designer).toMatchObject({ kind: 'policy', backend: 'webgpu', seed });
      expect(onGpu.design).toEqual(onCpu.design);
    }
  });
});
