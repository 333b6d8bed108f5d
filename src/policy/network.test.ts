import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTask } from '../bench/masbench/index.ts';
import type { Task } from '../core/trace.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { CpuModel } from '../gpu/cpu/model.ts';
import { chooseBackend, type BackendChoice } from '../gpu/select.ts';
import {
  incompatibility,
  paramShapes,
  parseCheckpoint,
  serializeCheckpoint,
  type PolicyCheckpoint,
} from './checkpoint.ts';
import { replay, trainingBatch } from './batch.ts';
import { actionMask, initialState, withResult, type ConstructionState } from './construction.ts';
import {
  ENCODER_VERSION,
  RESULT_DIM,
  agentDim,
  encodeAgents,
  encodeState,
  encodeTask,
  stateDimFor,
} from './encoder.ts';
import { PolicyNetwork, buildPolicyGraph, encoderConfig, randomCheckpoint } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct, type IntermediateRunner } from './sample.ts';

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

/**
 * A checkpoint as files were written before `config.encoder` existed: no version field and
 * parameters of S = stateDimFor(enc, 1) rows (the current checkpoint's rows without `RESULT`).
 */
function encoderV1(cp: PolicyCheckpoint): PolicyCheckpoint {
  const { encoder: _encoder, ...config } = cp.config;
  const shapes = paramShapes(config);
  const params = Object.fromEntries(
    Object.entries(cp.params).map(([name, v]) => {
      const size = (shapes[name] as number[]).reduce((a, b) => a * b, 1);
      return [name, v.slice(0, size)];
    }),
  );
  return { ...cp, config, params };
}

/** States visited by a construction (before every step), without intermediate results. */
async function visited(net: PolicyNetwork, seed: number): Promise<ConstructionState[]> {
  const cfg = net.checkpoint.config;
  const states: ConstructionState[] = [
    initialState(pool, { maxAgents: cfg.maxAgents, maxSteps: cfg.maxSteps }),
  ];
  await construct({
    policy: net,
    pool,
    task: task(seed % 2 === 0 ? 'depth' : 'parallel', 4 + seed, seed),
    seed,
    onStep: (o) => {
      if (!o.state.exited) states.push(o.state);
    },
  });
  return states;
}

describe('checkpoints of encoder version 1', () => {
  it('parse and migrate: the new state rows get zero weights, everything else is kept', () => {
    const current = randomCheckpoint(pool, 21);
    expect(current.config.encoder).toBe(ENCODER_VERSION);
    const old = encoderV1(current);
    const S1 = stateDimFor(encoderConfig(current.config), 1);
    expect(old.params['node.w1']).toHaveLength(S1 * current.config.hidden);
    expect('encoder' in old.config).toBe(false);
    const r = parseCheckpoint(serializeCheckpoint(old));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const m = r.value;
    expect(m.config).toEqual(current.config);
    for (const [name, v] of Object.entries(current.params)) {
      const got = m.params[name] as number[];
      expect(got).toHaveLength(v.length);
      const kept = (old.params[name] as number[]).length;
      expect(got.slice(0, kept)).toEqual(v.slice(0, kept));
      expect(got.slice(kept).every((x) => x === 0)).toBe(true);
      // Exactly the [S, ·] parameters grew, by RESULT_DIM rows.
      const rows = name === 'node.w1' || name === 'node.lin' || name === 'edge.stateLin';
      expect(got.length - kept).toBe(rows ? (RESULT_DIM * v.length) / (S1 + RESULT_DIM) : 0);
    }
    // Parsing the migrated checkpoint again changes nothing.
    const again = parseCheckpoint(serializeCheckpoint(m));
    expect(again.ok && again.value).toEqual(m);
  });

  it('give bit-identical distributions to the version-1 network, and ignore intermediate answers', async () => {
    const current = randomCheckpoint(pool, 33);
    const old = encoderV1(current);
    const r = parseCheckpoint(JSON.stringify(old));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const net = await PolicyNetwork.cpu(r.value, { edgeMode: 'fused' });
    // The network as it was: the version-1 graph, fed the version-1 state vector.
    const cfg = old.config;
    const enc = encoderConfig(cfg);
    const S1 = stateDimFor(enc, 1);
    const N = cfg.maxAgents;
    const R = cfg.roles.length;
    const pg = buildPolicyGraph(cfg, old.params, { batch: 1, edgeRows: R * N });
    expect(pg.params['node.w1']?.shape).toEqual([S1, cfg.hidden]);
    const ref = new CpuModel(pg.graph);
    ref.setInput(
      'edgeAgent',
      Uint32Array.from({ length: R * N }, (_, e) => e % N),
    );
    ref.setInput(
      'edgeRole',
      Uint32Array.from({ length: R * N }, (_, e) => Math.floor(e / N)),
    );
    ref.setInput('edgeBatch', new Uint32Array(R * N));
    ref.setInput('ones', new Float32Array(agentDim(enc)).fill(1));
    const t = task('depth', 5, 7);
    const te = encodeTask(t.query, cfg.hashDim);
    let compared = 0;
    let answered = 0;
    const states: ConstructionState[] = [];
    for (const seed of [1, 2, 3, 4, 5]) states.push(...(await visited(net, seed)));
    for (const state of states) {
      const full = encodeState(enc, te, state);
      ref.setInput('state', full.slice(0, S1));
      ref.setInput('mask', actionMask(state));
      ref.setInput('agents', encodeAgents(enc, state));
      await ref.step();
      const [probs, logits] = [await ref.read(pg.probs), await ref.read(pg.edgeLogits)];
      // Without results (as the version-1 encoder saw it) and with agreeing or refused answers.
      const withAnswers =
        state.step === 0
          ? []
          : [
              withResult(withResult(state, '\\boxed{4}', true), '\\boxed{4}', false),
              withResult(state, 'REFUSE: no input', null),
            ].map((s) => ({ ...s, results: s.results.map((x) => ({ ...x, step: state.step - 1 })) }));
      for (const s of [state, ...withAnswers]) {
        if (s.results.length > 0) {
          expect(
            encodeState(enc, te, s)
              .slice(S1)
              .some((x) => x !== 0),
          ).toBe(true);
          answered++;
        }
        const ev = await net.evaluate(te, s);
        expect(ev.probs).toEqual(probs);
        for (let role = 0; role < R; role++)
          expect(await ev.edges(role)).toEqual(logits.slice(role * N, role * N + s.agents.length));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
    expect(answered).toBeGreaterThan(10);
    ref.dispose();
  });

  it('with a wrong shape, or from a newer Baton, are rejected with readable problems', () => {
    const current = randomCheckpoint(pool, 2);
    const old = encoderV1(current);
    const S1 = stateDimFor(encoderConfig(current.config), 1);
    // A version-1 file is checked against the version-1 layout.
    const short = { ...old, params: { ...old.params, 'node.lin': [1, 2] } };
    const r1 = parseCheckpoint(JSON.stringify(short));
    expect(r1.ok).toBe(false);
    if (!r1.ok) {
      expect(r1.errors[0]?.code).toBe('E_POLICY_SHAPE');
      expect(r1.errors[0]?.message).toBe(
        `parameter node.lin has 2 values, expected [${S1}, 12] = ${S1 * 12} (encoder version 1)`,
      );
    }
    // A version-2 file with version-1 sized parameters is not silently migrated.
    const mislabelled = { ...old, config: { ...old.config, encoder: 2 } };
    const r2 = parseCheckpoint(JSON.stringify(mislabelled));
    expect(r2.ok).toBe(false);
    if (!r2.ok) {
      expect(r2.errors.map((e) => e.path)).toEqual([
        'params.node.w1',
        'params.node.lin',
        'params.edge.stateLin',
      ]);
      expect(r2.errors[0]?.message).toBe(
        `parameter node.w1 has ${S1 * 64} values, expected [${S1 + RESULT_DIM}, 64] = ${(S1 + RESULT_DIM) * 64}`,
      );
    }
    // A version-1 file that already has the new rows is not a version-1 file.
    const r3 = parseCheckpoint(JSON.stringify({ ...current, config: old.config }));
    expect(r3.ok).toBe(false);
    if (!r3.ok) expect(r3.errors[0]?.message).toMatch(/node\.w1 has \d+ values.*\(encoder version 1\)/);
    const newer = parseCheckpoint(JSON.stringify({ ...current, config: { ...current.config, encoder: 3 } }));
    expect(newer).toMatchObject({ ok: false, errors: [{ code: 'E_POLICY_SCHEMA', path: 'config.encoder' }] });
    if (!newer.ok) expect(newer.errors[0]?.message).toMatch(/newer than this Baton reads \(up to 2\)/);
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

/** Answers that settle once the design has two agents (so the answer features change), graded right then. */
function agreeingRunner(): IntermediateRunner {
  return (design) =>
    Promise.resolve({
      answer: `\\boxed{${Math.min(design.agents.length, 3)}}`,
      correct: design.agents.length >= 3,
    });
}

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

  it('holds for constructions whose steps were executed (intermediate answers are part of the state)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const cfg = net.checkpoint.config;
    const episodes = [];
    let answered = 0;
    for (const [t, seed] of [
      [task('depth', 6, 4), 3],
      [task('parallel', 5, 6), 4],
    ] as const) {
      const c = await construct({ policy: net, pool, task: t, seed, runner: agreeingRunner() });
      answered += c.steps.filter((st) => st.intermediateAnswer !== undefined).length;
      episodes.push({ task: encodeTask(t.query, cfg.hashDim), steps: c.steps });
    }
    expect(answered).toBeGreaterThan(0);
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
    // With a runner the intermediate-answer features are non-zero: the answer settles at 2 agents
    // (agreement from the third run on), and a lone Verifier refuses.
    const runner: IntermediateRunner = (design) =>
      Promise.resolve({
        answer:
          design.agents.length === 1 && design.agents[0]?.role === 'Verifier'
            ? 'REFUSE: there is no proposed answer'
            : `\\boxed{${Math.min(design.agents.length, 2)}}`,
        correct: null,
      });
    const cases: [PolicyCheckpoint, Task, number, IntermediateRunner | undefined][] = [
      [priorCheckpoint(pool), task('depth', 6, 3), 1, undefined],
      [priorCheckpoint(pool), task('parallel', 5, 4), 2, undefined],
      [randomCheckpoint(pool, 8), task('depth', 3, 5), 3, undefined],
      [priorCheckpoint(pool), task('depth', 9, 6), 4, runner],
      [randomCheckpoint(pool, 9), task('parallel', 4, 7), 5, runner],
    ];
    let answered = 0;
    for (const [cp, t, seed, run] of cases) {
      const opts = { pool, task: t, seed, ...(run ? { runner: run } : {}) };
      const onCpu = await construct({ policy: await PolicyNetwork.cpu(cp), ...opts });
      const gnet = await PolicyNetwork.create(cp, gpu);
      expect(gnet.backend).toBe('webgpu');
      const onGpu = await construct({ policy: gnet, ...opts });
      answered += onCpu.state.results.filter((r) => r.answer !== null).length;
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
    expect(answered).toBeGreaterThan(2);
  });
});
