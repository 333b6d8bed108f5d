import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTask } from '../masbench/index.ts';
import type { Task } from '../core/trace.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { CpuModel, chooseBackend, type BackendChoice } from '../gpu/index.ts';
import {
  incompatibility,
  paramShapes,
  parseCheckpoint,
  serializeCheckpoint,
  type PolicyCheckpoint,
} from './checkpoint.ts';
import { fixedLayout, replay, trainingBatch, type EpisodeSteps } from './batch.ts';
import { actionMask, applyAction, initialState, withResult, type ConstructionState } from './construction.ts';
import {
  ENCODER_VERSION,
  RESULT_DIM,
  agentDim,
  encodeAgents,
  encodeState,
  encodeTask,
  stateDimFor,
  type EncoderConfig,
  type TaskEncoding,
} from './encoder.ts';
import { PolicyNetwork, buildPolicyGraph, encoderConfig, randomCheckpoint } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './episode.ts';
import type { IntermediateRunner } from './step-types.ts';

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
    // A value that overflows in f32 is refused when the file is read…
    const huge = { ...cp, params: { ...cp.params, 'node.b2': cp.params['node.b2']?.map(() => 1e30) } };
    const h = parseCheckpoint(JSON.stringify(huge));
    expect(h).toMatchObject({ ok: false, errors: [{ code: 'E_POLICY_SCHEMA', path: 'params.node.b2' }] });
    if (!h.ok) expect(h.errors[0]?.message).toMatch(/within ±1000000/);
  });

  it('explains a network whose numbers overflow instead of failing on a later symptom', async () => {
    // …and one made in memory (no file check) stops with the reason at the first step.
    const cp = randomCheckpoint(pool, 1);
    // 1e308 is ∞ in f32: every logit is ∞, and softmax's ∞ − ∞ is NaN.
    const broken = {
      ...cp,
      params: { ...cp.params, 'node.b2': (cp.params['node.b2'] as number[]).map(() => 1e308) },
    };
    const net = await PolicyNetwork.cpu(broken);
    await expect(construct({ policy: net, pool, task: task('depth', 3, 1), seed: 1 })).rejects.toThrow(
      /non-finite distribution/,
    );
    net.dispose();
  });
});

/**
 * A checkpoint as an older Baton wrote it: version 1 had no `config.encoder` and S =
 * stateDimFor(enc, 1) rows (the current rows without `RESULT`); version 2 had every state row but
 * no message-passing block. The current checkpoint's parameters are cut to that layout.
 */
function olderCheckpoint(cp: PolicyCheckpoint, version: 1 | 2): PolicyCheckpoint {
  const { encoder: _encoder, graphHidden: _hidden, graphLayers: _layers, ...rest } = cp.config;
  const config = version === 1 ? rest : { ...rest, encoder: 2 };
  const shapes = paramShapes(config);
  const params = Object.fromEntries(
    Object.entries(cp.params)
      .filter(([name]) => name in shapes)
      .map(([name, v]) => [
        name,
        v.slice(
          0,
          (shapes[name] as number[]).reduce((a, b) => a * b, 1),
        ),
      ]),
  );
  return { ...cp, config, params };
}
const encoderV1 = (cp: PolicyCheckpoint): PolicyCheckpoint => olderCheckpoint(cp, 1);

/** Parameters the 2 → 3 migration adds: the message-passing layers, and their zero entry weights. */
const GRAPH_ENTRY = ['node.wgm', 'node.wgs', 'edge.wh'];

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

describe('checkpoints of older encoder versions', () => {
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
    // The message-passing block is what the 2 → 3 step gives any version-2 checkpoint.
    const viaV2 = parseCheckpoint(serializeCheckpoint(olderCheckpoint(current, 2)));
    if (!viaV2.ok) throw new Error(JSON.stringify(viaV2.errors));
    for (const [name, v] of Object.entries(current.params)) {
      const got = m.params[name] as number[];
      expect(got).toHaveLength(v.length);
      const before = old.params[name];
      if (!before) {
        expect(got).toEqual(viaV2.value.params[name]);
        if (GRAPH_ENTRY.includes(name) || name.startsWith('gnn.b'))
          expect(got.every((x) => x === 0)).toBe(true);
        else expect(got.some((x) => x !== 0)).toBe(true);
        continue;
      }
      const kept = before.length;
      expect(got.slice(0, kept)).toEqual(v.slice(0, kept));
      expect(got.slice(kept).every((x) => x === 0)).toBe(true);
      // Exactly the [S, ·] parameters grew, by RESULT_DIM rows.
      const rows = name === 'node.w1' || name === 'node.lin' || name === 'edge.stateLin';
      expect(got.length - kept).toBe(rows ? (RESULT_DIM * v.length) / (S1 + RESULT_DIM) : 0);
    }
    expect(Object.keys(m.params).filter((n) => !(n in old.params))).toEqual([
      'gnn.self1',
      'gnn.in1',
      'gnn.out1',
      'gnn.b1',
      'gnn.self2',
      'gnn.in2',
      'gnn.out2',
      'gnn.b2',
      ...GRAPH_ENTRY,
    ]);
    // Parsing the migrated checkpoint again changes nothing.
    const again = parseCheckpoint(serializeCheckpoint(m));
    expect(again.ok && again.value).toEqual(m);
  });

  it('give bit-identical distributions to the network of their version (version 1 ignoring intermediate answers)', async () => {
    for (const version of [1, 2] as const) {
      const current = randomCheckpoint(pool, 33);
      const old = olderCheckpoint(current, version);
      const r = parseCheckpoint(JSON.stringify(old));
      if (!r.ok) throw new Error(JSON.stringify(r.errors));
      const net = await PolicyNetwork.cpu(r.value, { edgeMode: 'fused' });
      // The network as it was: the graph of that version, fed that version's state vector.
      const cfg = old.config;
      const enc = encoderConfig(cfg);
      const Sv = stateDimFor(enc, version);
      const N = cfg.maxAgents;
      const R = cfg.roles.length;
      const pg = buildPolicyGraph(cfg, old.params, { batch: 1, edgeRows: R * N });
      expect(pg.params['node.w1']?.shape).toEqual([Sv, cfg.hidden]);
      expect(pg.params['gnn.self1']).toBeUndefined();
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
      let linked = 0;
      const states: ConstructionState[] = [];
      for (const seed of [1, 2, 3, 4, 5]) states.push(...(await visited(net, seed)));
      for (const state of states) {
        // Without results (as the version-1 encoder saw it) and with agreeing or refused answers.
        const withAnswers =
          state.step === 0
            ? []
            : [
                withResult(withResult(state, '\\boxed{4}', true), '\\boxed{4}', false),
                withResult(state, 'REFUSE: no input', null),
              ].map((s) => ({ ...s, results: s.results.map((x) => ({ ...x, step: state.step - 1 })) }));
        for (const s of [state, ...withAnswers]) {
          const full = encodeState(enc, te, s);
          if (s.results.length > 0) {
            expect(full.slice(stateDimFor(enc, 1)).some((x) => x !== 0)).toBe(true);
            answered++;
          }
          if (s.agents.some((a) => a.links.length > 0)) linked++;
          ref.setInput('state', full.slice(0, Sv));
          ref.setInput('mask', actionMask(s));
          ref.setInput('agents', encodeAgents(enc, s));
          await ref.step();
          const [probs, logits] = [await ref.read(pg.probs), await ref.read(pg.edgeLogits)];
          const ev = await net.evaluate(te, s);
          expect(ev.probs).toEqual(probs);
          for (let role = 0; role < R; role++)
            expect(await ev.edges(role)).toEqual(logits.slice(role * N, role * N + s.agents.length));
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(20);
      expect(answered).toBeGreaterThan(10);
      // The message-passing block had links to read, and still changed nothing.
      expect(linked).toBeGreaterThan(5);
      ref.dispose();
      net.dispose();
    }
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
        `parameter node.w1 has ${S1 * 64} values, expected [${S1 + RESULT_DIM}, 64] = ${(S1 + RESULT_DIM) * 64} (encoder version 2)`,
      );
    }
    // A version-1 file that already has the new rows is not a version-1 file.
    const r3 = parseCheckpoint(JSON.stringify({ ...current, config: old.config }));
    expect(r3.ok).toBe(false);
    if (!r3.ok) expect(r3.errors[0]?.message).toMatch(/node\.w1 has \d+ values.*\(encoder version 1\)/);
    const newer = parseCheckpoint(JSON.stringify({ ...current, config: { ...current.config, encoder: 4 } }));
    expect(newer).toMatchObject({ ok: false, errors: [{ code: 'E_POLICY_SCHEMA', path: 'config.encoder' }] });
    if (!newer.ok) expect(newer.errors[0]?.message).toMatch(/newer than this Baton reads \(up to 3\)/);
    // Version 3 needs the message-passing block; version 2 has none.
    const { 'gnn.in2': _dropped, ...withoutLayer } = current.params;
    const r4 = parseCheckpoint(JSON.stringify({ ...current, params: withoutLayer }));
    expect(r4).toMatchObject({ ok: false, errors: [{ code: 'E_POLICY_SHAPE', path: 'params.gnn.in2' }] });
    if (!r4.ok) expect(r4.errors[0]?.message).toBe('missing parameter gnn.in2');
    const v2 = olderCheckpoint(current, 2);
    const r5 = parseCheckpoint(
      JSON.stringify({ ...v2, params: { ...v2.params, 'edge.wh': current.params['edge.wh'] } }),
    );
    expect(r5).toMatchObject({ ok: false, errors: [{ code: 'E_POLICY_SHAPE', path: 'params.edge.wh' }] });
    if (!r5.ok) expect(r5.errors[0]?.message).toBe('unknown parameter edge.wh (encoder version 2)');
  });
});

// ---------------------------------------------------------------- message passing

type Vec = number[];
/** x·W for a row vector x [n] and a row-major W [n, cols], in float64. */
const vecMat = (x: Vec, w: readonly number[], cols: number): Vec => {
  const out = new Array<number>(cols).fill(0);
  x.forEach((xi, i) => {
    for (let c = 0; c < cols; c++) out[c] = (out[c] as number) + xi * (w[i * cols + c] as number);
  });
  return out;
};
const sumVec = (...vs: readonly (readonly number[])[]): Vec =>
  (vs[0] as readonly number[]).map((_, i) => vs.reduce((a, v) => a + (v[i] as number), 0));
const meanVec = (vs: Vec[], dim: number): Vec =>
  vs.length === 0 ? new Array<number>(dim).fill(0) : sumVec(...vs).map((x) => x / vs.length);

/**
 * The network's formula (network.ts header) written out again in float64 over the agents that
 * exist, with the links read straight from the state: an independent check of the graph's wiring,
 * of the message directions and of the padding (empty slots and unused message slots add nothing).
 */
function referenceForward(
  cp: PolicyCheckpoint,
  enc: EncoderConfig,
  te: TaskEncoding,
  st: ConstructionState,
): { probs: Vec; edges: (role: number) => Vec } {
  const P = (name: string): number[] => cp.params[name] as number[];
  const H = cp.config.hidden;
  const G = cp.config.graphHidden as number;
  const L = cp.config.graphLayers as number;
  const A = cp.config.roles.length + 2;
  const Da = agentDim(enc);
  const s = Array.from(encodeState(enc, te, st));
  const rows = encodeAgents(enc, st);
  const a = st.agents.map((_, i) => Array.from(rows.slice(i * Da, (i + 1) * Da)));
  const index = new Map(st.agents.map((ag, i) => [ag.id, i]));
  const reads = st.agents.map((ag) => ag.links.map((l) => index.get(l) as number));
  const readers = st.agents.map((ag) => st.agents.flatMap((o, k) => (o.links.includes(ag.id) ? [k] : [])));
  let x = a;
  for (let l = 1; l <= L; l++) {
    const prev = x;
    x = prev.map((xi, i) =>
      sumVec(
        vecMat(xi, P(`gnn.self${l}`), G),
        meanVec(
          (reads[i] as number[]).map((j) => vecMat(prev[j] as Vec, P(`gnn.in${l}`), G)),
          G,
        ),
        meanVec(
          (readers[i] as number[]).map((k) => vecMat(prev[k] as Vec, P(`gnn.out${l}`), G)),
          G,
        ),
        P(`gnn.b${l}`),
      ).map(Math.tanh),
    );
  }
  const sinks = x.filter((_, i) => (readers[i] as number[]).length === 0);
  const h = sumVec(
    vecMat(s, P('node.w1'), H),
    vecMat(meanVec(x, G), P('node.wgm'), H),
    vecMat(meanVec(sinks, G), P('node.wgs'), H),
    P('node.b1'),
  ).map(Math.tanh);
  const logits = sumVec(vecMat(h, P('node.w2'), A), vecMat(s, P('node.lin'), A), P('node.b2'));
  const mask = actionMask(st);
  const top = Math.max(...logits.filter((_, i) => mask[i] === 1));
  const e = logits.map((z, i) => (mask[i] === 1 ? Math.exp(z - top) : 0));
  const Z = e.reduce((p, q) => p + q, 0);
  const hs = vecMat(h, P('edge.ws'), H);
  const sM = vecMat(s, P('edge.stateLin'), Da);
  const edges = (role: number): Vec =>
    a.map((ai, i) => {
      const z = sumVec(
        vecMat(ai, P('edge.wa'), H),
        hs,
        P('edge.role').slice(role * H, (role + 1) * H),
        vecMat(x[i] as Vec, P('edge.wh'), H),
        P('edge.ba'),
      ).map(Math.tanh);
      const lin = ai.reduce(
        (acc, v, k) => acc + v * ((P('edge.roleLin')[role * Da + k] as number) + (sM[k] as number)),
        0,
      );
      return (vecMat(z, P('edge.wo'), 1)[0] as number) + lin + (P('edge.bo')[0] as number);
    });
  return { probs: e.map((v) => v / Z), edges };
}

describe('the message-passing graph encoder', () => {
  it('computes the documented formula: the network agrees with a float64 reference', async () => {
    const cp = randomCheckpoint(pool, 44);
    // Without the graph block's entry weights: to show the block moves the numbers it is checked on.
    const blind = { ...cp, params: { ...cp.params, ...withoutEntry(cp) } };
    const net = await PolicyNetwork.cpu(cp);
    const enc = net.enc;
    const te = encodeTask(task('parallel', 6, 9).query, cp.config.hashDim);
    const states: ConstructionState[] = [];
    for (const seed of [3, 4, 5]) states.push(...(await visited(net, seed)));
    let moved = 0;
    let linked = 0;
    for (const st of states) {
      const ref = referenceForward(cp, enc, te, st);
      const ev = await net.evaluate(te, st);
      ev.probs.forEach((p, i) => expect(Math.abs(p - (ref.probs[i] as number))).toBeLessThan(1e-5));
      for (let role = 0; role < pool.roles.length; role++) {
        const got = await ev.edges(role);
        const want = ref.edges(role);
        expect(got).toHaveLength(want.length);
        got.forEach((l, i) => expect(Math.abs(l - (want[i] as number))).toBeLessThan(1e-4));
      }
      const without = referenceForward(blind, enc, te, st);
      if (ref.probs.some((p, i) => Math.abs(p - (without.probs[i] as number)) > 1e-3)) moved++;
      if (st.agents.some((ag) => ag.links.length > 0)) linked++;
    }
    expect(states.length).toBeGreaterThan(8);
    expect(linked).toBeGreaterThan(2);
    expect(moved).toBeGreaterThan(states.length / 2);
    net.dispose();
  });

  it('tells apart wirings that every hand-made feature sees as the same graph', async () => {
    // Planner and Solver both feed one of Critic and Verifier; only who feeds whom differs.
    const wire = (critic: string, verifier: string): ConstructionState => {
      let st = initialState(pool, { maxAgents: 12, maxSteps: 16 });
      for (const action of [
        { kind: 'add', role: 1, links: [] },
        { kind: 'add', role: 2, links: [] },
        { kind: 'add', role: 6, links: [critic] },
        { kind: 'add', role: 5, links: [verifier] },
      ] as const)
        st = applyAction(st, { ...action, links: [...action.links] }).state;
      return st;
    };
    const x = wire('planner-1', 'solver-2');
    const y = wire('solver-2', 'planner-1');
    const cp = randomCheckpoint(pool, 45);
    const enc = encoderConfig(cp.config);
    const te = encodeTask(task('depth', 6, 2).query, cp.config.hashDim);
    // Every feature of the state vector and of the agent rows is equal…
    expect(encodeState(enc, te, x)).toEqual(encodeState(enc, te, y));
    expect(encodeAgents(enc, x)).toEqual(encodeAgents(enc, y));
    // …so the network without its message-passing block (entry weights zero, which is the
    // version-2 network: see the migration tests) cannot tell them apart,
    const old = await PolicyNetwork.cpu({ ...cp, params: { ...cp.params, ...withoutEntry(cp) } });
    const [ox, oy] = [await old.evaluate(te, x), await old.evaluate(te, y)];
    expect(ox.probs).toEqual(oy.probs);
    expect(await ox.edges(2)).toEqual(await oy.edges(2));
    // …and the message-passing one can.
    const net = await PolicyNetwork.cpu(cp);
    const nx = await net.evaluate(te, x);
    const px = Array.from(nx.probs);
    const ex = Array.from(await nx.edges(2));
    const ny = await net.evaluate(te, y);
    const gap = Math.max(...px.map((p, i) => Math.abs(p - (ny.probs[i] as number))));
    expect(gap).toBeGreaterThan(1e-3);
    const ey = Array.from(await ny.edges(2));
    expect(Math.max(...ex.map((l, i) => Math.abs(l - (ey[i] as number))))).toBeGreaterThan(1e-3);
    old.dispose();
    net.dispose();
  });
});

/** The graph block's entry weights of a checkpoint set to zero (the state right after a 2 → 3 migration). */
function withoutEntry(cp: PolicyCheckpoint): Record<string, number[]> {
  return Object.fromEntries(GRAPH_ENTRY.map((n) => [n, (cp.params[n] as number[]).map(() => 0)]));
}

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

/** The training graph's `joint` over the episodes' recorded steps, and the recorded log-probabilities. */
async function trainingJoint(
  net: PolicyNetwork,
  episodes: EpisodeSteps[],
): Promise<{ joint: Float32Array; recorded: number[] }> {
  const cfg = net.checkpoint.config;
  const tb = trainingBatch(cfg, pool, episodes);
  const pg = buildPolicyGraph(cfg, net.checkpoint.params, {
    batch: tb.batch,
    edgeRows: tb.edgeRows,
    logProb: true,
  });
  const m = new CpuModel(pg.graph);
  const enc = encoderConfig(cfg);
  m.setInput('ones', new Float32Array(agentDim(enc)).fill(1));
  m.setInput('onesG', new Float32Array(cfg.graphHidden ?? 32).fill(1));
  tb.rows.feed(m, { targets: true });
  await m.step();
  // The fixed-offset layout (every state N agent rows, M message slots) gives the same numbers.
  const fixed = new CpuModel(
    buildPolicyGraph(cfg, net.checkpoint.params, {
      batch: tb.batch,
      edgeRows: tb.batch * cfg.maxAgents,
      logProb: true,
    }).graph,
  );
  for (const [k, v] of Object.entries(fixedLayout(cfg, tb))) fixed.setInput(k, v);
  await fixed.step();
  const jointFixed = fixed.graph.nodes.find((n) => n.id === (pg.joint as NonNullable<typeof pg.joint>).id);
  expect(Array.from(await fixed.read(jointFixed as NonNullable<typeof jointFixed>))).toEqual(
    Array.from(await m.read(pg.joint as NonNullable<typeof pg.joint>)),
  );
  const joint = await m.read(pg.joint as NonNullable<typeof pg.joint>);
  m.dispose();
  return { joint, recorded: episodes.flatMap((e) => e.steps.map((st) => st.logProb as number)) };
}

describe('the joint log-probability of the training graph equals the recorded one', () => {
  it('log π_node(a) + Σ log Bernoulli through pick / bernoulliLogProb / scatterAddRows, over two episodes', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 5));
    const cfg = net.checkpoint.config;
    const episodes: EpisodeSteps[] = [];
    for (const [t, seed] of [
      [task('parallel', 4, 2), 1],
      [task('depth', 5, 3), 2],
    ] as const) {
      const c = await construct({ policy: net, pool, task: t, seed });
      episodes.push({ task: encodeTask(t.query, cfg.hashDim), steps: c.steps });
    }
    const { joint, recorded } = await trainingJoint(net, episodes);
    expect(joint.length).toBe(recorded.length);
    recorded.forEach((lp, b) => expect(joint[b]).toBeCloseTo(lp, 4));
  });

  it('holds for constructions whose steps were executed (intermediate answers are part of the state)', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const cfg = net.checkpoint.config;
    const episodes: EpisodeSteps[] = [];
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
    const { joint, recorded } = await trainingJoint(net, episodes);
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
