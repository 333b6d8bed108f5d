import { describe, expect, it } from 'vitest';
import { simulatedRunners } from '../executor/train-runners.ts';
import type { Task } from '../core/trace.ts';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { generateTask, taskOfMasbench, type Axis } from '../masbench/index.ts';
import { BatchedPolicy, MAX_STREAMS, constructMany, streamBlocks } from './batch-sample.ts';
import { applyAction, initialState, type ConstructionState } from './construction.ts';
import { encodeTask } from './encoder.ts';
import { construct } from './episode.ts';
import { PolicyNetwork, randomCheckpoint, type EdgeMode } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { fieldsOf, lazyParams, type PolicyCheckpoint } from './checkpoint.ts';

const pool = DEFAULT_POOL;
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const CREATED = '2026-01-02T03:04:05.000Z';
const AXES: Axis[] = ['depth', 'parallel', 'robustness', 'breadth'];

function tasks(n: number, seed: number) {
  return Array.from({ length: n }, (_, i) =>
    generateTask({
      axis: AXES[i % AXES.length] as Axis,
      value: 2 + ((i + seed) % 5),
      seed: seed * 31 + i,
    }),
  );
}

/** A state with `n` agents (Solvers, each reading the one before). */
function stateWith(n: number): ConstructionState {
  const solver = pool.roles.findIndex((r) => r.name === 'Solver');
  let s = initialState(pool, { maxAgents: 12, maxSteps: 16 });
  for (let i = 0; i < n; i++) {
    const links = s.agents.length > 0 ? [(s.agents[s.agents.length - 1] as { id: string }).id] : [];
    s = applyAction(s, { kind: 'add', role: solver, links }).state;
  }
  return s;
}

async function both(
  cp: PolicyCheckpoint,
  o: {
    seed: number;
    n: number;
    execute: boolean;
    temperature?: number;
    greedy?: boolean;
    edgeMode?: EdgeMode;
    choice?: BackendChoice;
    streams?: number;
  },
) {
  const ts = tasks(o.n, o.seed);
  const seeds = ts.map((_, i) => (o.seed * 1000 + i * 7) >>> 0);
  const net = await PolicyNetwork.cpu(cp);
  const one = [];
  for (const [i, t] of ts.entries()) {
    const seed = seeds[i] as number;
    one.push(
      await construct({
        policy: net,
        pool,
        task: taskOfMasbench(t),
        seed,
        maxSteps: 10,
        createdAt: CREATED,
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.greedy ? { greedy: true } : {}),
        ...(o.execute ? { runner: simulatedRunners(t, seed).intermediate } : {}),
      }),
    );
  }
  net.dispose();
  const batched = BatchedPolicy.create(cp, o.choice ?? CPU, {
    maxBatch: ts.length,
    ...(o.edgeMode ? { edgeMode: o.edgeMode } : {}),
    ...(o.streams ? { streams: o.streams } : {}),
  });
  const many = await constructMany({
    policy: batched,
    pool,
    maxSteps: 10,
    createdAt: CREATED,
    ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
    ...(o.greedy ? { greedy: true } : {}),
    episodes: ts.map((t, i) => {
      const seed = seeds[i] as number;
      return {
        task: taskOfMasbench(t),
        seed,
        ...(o.execute ? { runner: simulatedRunners(t, seed).intermediate } : {}),
      };
    }),
  });
  batched.dispose();
  return { one, many };
}

describe('batched construction (constructMany)', () => {
  it('gives the traces construct gives, step for step, with intermediate answers (prior, several seeds)', async () => {
    for (const seed of [1, 2, 3]) {
      const { one, many } = await both(priorCheckpoint(pool), { seed, n: 12, execute: true });
      expect(many.map((c) => c.trace)).toEqual(one.map((c) => c.trace));
      // Episodes of different lengths ran in one batch, and some steps were executed.
      expect(new Set(one.map((c) => c.steps.length)).size).toBeGreaterThan(1);
      expect(one.flatMap((c) => c.steps).some((s) => s.intermediateCorrect === true)).toBe(true);
    }
  });

  it('matches for a random policy, at another temperature and greedy', async () => {
    const cp = randomCheckpoint(pool, 5);
    for (const o of [
      { seed: 4, n: 9, execute: false },
      { seed: 5, n: 7, execute: true, temperature: 0.7 },
      { seed: 6, n: 5, execute: false, greedy: true },
    ]) {
      const { one, many } = await both(cp, o);
      expect(many.map((c) => c.trace)).toEqual(one.map((c) => c.trace));
    }
  });

  it('gives the one-state pass its numbers bit for bit (node head and edge head)', async () => {
    const cp = randomCheckpoint(pool, 9);
    const net = await PolicyNetwork.cpu(cp);
    const bat = BatchedPolicy.create(cp, CPU, { maxBatch: 8 });
    const task = encodeTask(taskOfMasbench(tasks(1, 3)[0] as ReturnType<typeof generateTask>).query, 256);
    const states = [0, 1, 3, 5, 2].map(stateWith);
    const heads = await bat.nodePass(states.map((state) => ({ task, state })));
    const edges = await bat.edgePass(states.slice(1).map((state, i) => ({ task, state, role: i + 2 })));
    for (const [i, state] of states.entries()) {
      const ev = await net.evaluate(task, state);
      expect(Array.from(heads[i]?.probs ?? [])).toEqual(Array.from(ev.probs));
      if (i > 0) expect(Array.from(edges[i - 1] ?? [])).toEqual(Array.from(await ev.edges(i + 1)));
    }
    net.dispose();
    bat.dispose();
  });

  it('loads another checkpoint’s parameter arena without compiling again (same traces as a fresh sampler)', async () => {
    const a = randomCheckpoint(pool, 21);
    const b = randomCheckpoint(pool, 22);
    // The arena of b as the compute core lays it out (a learner's graph has the same parameters).
    const { buildPolicyGraph } = await import('./network.ts');
    const { compile } = await import('../gpu/index.ts');
    const arenaOf = async (cp: PolicyCheckpoint): Promise<Float32Array> => {
      const pg = buildPolicyGraph(cp.config, cp.params, { batch: 1, edgeRows: 12 });
      const model = await compile(CPU, pg.graph);
      const params = (await model.exportState()).params;
      model.dispose();
      return params;
    };
    const arena = await arenaOf(b);
    const eps = tasks(6, 8).map((t, i) => ({ task: taskOfMasbench(t), seed: 50 + i }));
    const run = (p: BatchedPolicy) => constructMany({ policy: p, pool, episodes: eps, createdAt: CREATED });
    const reused = BatchedPolicy.create(a, CPU, { maxBatch: 6 });
    const before = await run(reused);
    // Loading takes the arena and does not read the checkpoint's parameters (made on first read);
    // a pass of a batch size not compiled yet builds its graph from them once, then takes the arena.
    let reads = 0;
    const named = lazyParams(fieldsOf(b), () => (reads++, b.params));
    reused.load(named, arena);
    expect(reads).toBe(0);
    const loaded = await run(reused);
    expect(reads).toBeLessThanOrEqual(1);
    expect(reused.checkpoint.name).toBe(b.name);
    expect(reused.checkpoint.params).toEqual(b.params);
    expect(reads).toBe(1);
    const fresh = BatchedPolicy.create(b, CPU, { maxBatch: 6 });
    const want = await run(fresh);
    expect(loaded.map((c) => c.trace)).toEqual(want.map((c) => c.trace));
    expect(before.map((c) => c.steps)).not.toEqual(want.map((c) => c.steps));
    // Back to a's arena: graphs of batch sizes that b's passes did not use take it too (each
    // compiled graph takes the latest arena when it next runs).
    reused.load(a, await arenaOf(a));
    const few = eps.slice(0, 3);
    const back = await constructMany({ policy: reused, pool, episodes: few, createdAt: CREATED });
    const freshA = BatchedPolicy.create(a, CPU, { maxBatch: 6 });
    const wantA = await constructMany({ policy: freshA, pool, episodes: few, createdAt: CREATED });
    expect(back.map((c) => c.trace)).toEqual(wantA.map((c) => c.trace));
    expect(back.map((c) => c.steps)).toEqual(before.slice(0, 3).map((c) => c.steps));
    reused.dispose();
    fresh.dispose();
    freshA.dispose();
  });

  it('in fused edge mode gives the same traces, each role’s edges from the node pass bit for bit', async () => {
    const cp = randomCheckpoint(pool, 9);
    for (const o of [
      { seed: 1, n: 12, execute: true },
      { seed: 5, n: 7, execute: true, temperature: 0.7 },
    ]) {
      const { one, many } = await both(cp, { ...o, edgeMode: 'fused' });
      expect(many.map((c) => c.trace)).toEqual(one.map((c) => c.trace));
    }
    const fused = BatchedPolicy.create(cp, CPU, { maxBatch: 8, edgeMode: 'fused' });
    const two = BatchedPolicy.create(cp, CPU, { maxBatch: 8 });
    expect([fused.edgeMode, two.edgeMode]).toEqual(['fused', 'two-pass']);
    const task = encodeTask(taskOfMasbench(tasks(1, 3)[0] as ReturnType<typeof generateTask>).query, 256);
    const states = [0, 1, 3, 5, 2].map(stateWith);
    const heads = await fused.nodePass(states.map((state) => ({ task, state })));
    const plain = await two.nodePass(states.map((state) => ({ task, state })));
    for (let r = 0; r < pool.roles.length; r++) {
      const edges = await two.edgePass(
        states.map((state) => ({ task, state, role: state.agents.length ? r : null })),
      );
      for (const [i, state] of states.entries()) {
        expect(Array.from(heads[i]?.probs ?? [])).toEqual(Array.from(plain[i]?.probs ?? []));
        const got = heads[i]?.roleEdges?.(r) ?? new Float32Array(1);
        expect(got.length, `state ${i}`).toBe(state.agents.length);
        expect(Array.from(got), `state ${i}, role ${r}`).toEqual(Array.from(edges[i] ?? []));
      }
    }
    fused.dispose();
    two.dispose();
  });

  it('on WebGPU samples in fused mode: one pass per construction step, the traces of two-pass', async () => {
    const choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
    const ctx = choice.ctx;
    if (!ctx) throw new Error('no WebGPU context');
    try {
      expect(BatchedPolicy.create(priorCheckpoint(pool), choice, { maxBatch: 4 }).edgeMode).toBe('fused');
      const run = async (edgeMode: EdgeMode) => {
        ctx.resetCounters();
        const { many } = await both(priorCheckpoint(pool), {
          seed: 2,
          n: 6,
          execute: true,
          choice,
          edgeMode,
        });
        return { many, submissions: ctx.resetCounters().submissions };
      };
      const fused = await run('fused');
      const two = await run('two-pass');
      // The same traces: every edge row reads only its agent, state and role.
      expect(fused.many.map((m) => m.trace)).toEqual(two.many.map((m) => m.trace));
      // One submission per step of the longest episode (node and every role's edges); two-pass adds
      // an edge pass at every step where some episode chose an ADD with agents to link.
      const steps = Math.max(...fused.many.map((m) => m.steps.length));
      expect(fused.submissions).toBe(steps);
      expect(two.submissions).toBeGreaterThan(steps);
    } finally {
      ctx.dispose();
    }
  });

  it('in streams gives the traces construct gives (CPU: a row does not depend on its batch)', async () => {
    for (const [seed, streams, n] of [
      [1, 3, 12],
      [2, 2, 7],
      [3, 8, 5],
    ] as const) {
      const { one, many } = await both(priorCheckpoint(pool), { seed, n, execute: true, streams });
      expect(
        many.map((c) => c.trace),
        `streams ${streams}`,
      ).toEqual(one.map((c) => c.trace));
    }
  });

  it('steps one stream while another waits on its sub-agents', async () => {
    const ts = tasks(4, 3);
    const log: string[] = [];
    const bat = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 4, streams: 2 });
    const pass = bat.nodePass.bind(bat);
    bat.nodePass = (items, stream = 0) => (log.push(`pass ${stream}`), pass(items, stream));
    let open = 0;
    let passesWhileOpen = 0;
    const slow = (i: number) => {
      const inner = simulatedRunners(ts[i] as ReturnType<typeof generateTask>, i).intermediate;
      return async (...a: Parameters<typeof inner>) => {
        open++;
        const before = log.length;
        // A sub-agent that answers later (as a remote LLM does): other work runs meanwhile.
        await new Promise((r) => setTimeout(r, 2));
        passesWhileOpen += log.slice(before).filter((e) => e.startsWith('pass')).length;
        open--;
        return inner(...a);
      };
    };
    const many = await constructMany({
      policy: bat,
      pool,
      maxSteps: 6,
      episodes: ts.map((t, i) => ({ task: taskOfMasbench(t), seed: i, runner: slow(i) })),
    });
    bat.dispose();
    expect(open).toBe(0);
    expect(many).toHaveLength(4);
    expect(new Set(log)).toEqual(new Set(['pass 0', 'pass 1']));
    // With one stream no pass can start while a step's sub-agents run; here the other stream's do.
    expect(passesWhileOpen).toBeGreaterThan(0);
  });

  it('splits episodes into contiguous blocks and refuses a bad stream count', () => {
    expect(streamBlocks(7, 3)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5, 6],
    ]);
    expect(streamBlocks(2, 4)).toEqual([[0], [1]]);
    expect(streamBlocks(0, 2)).toEqual([[]]);
    expect(streamBlocks(5, 1)).toEqual([[0, 1, 2, 3, 4]]);
    for (const streams of [0, 1.5, MAX_STREAMS + 1])
      expect(() => BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 4, streams })).toThrow(
        /streams must be an integer/,
      );
  });

  it('refuses more episodes than its batch', async () => {
    const bat = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 2 });
    const eps = tasks(3, 1).map((t, i) => ({ task: taskOfMasbench(t) as Task, seed: i }));
    await expect(constructMany({ policy: bat, pool, episodes: eps })).rejects.toThrow(/exceed/);
  });
});

describe('the jpss switch (w/o JPSS ablation)', () => {
  const task = encodeTask(taskOfMasbench(tasks(1, 2)[0] as ReturnType<typeof generateTask>).query, 256);
  const state = stateWith(3);
  const roles = pool.roles.map((_, r) => r);

  for (const [name, cp] of [
    ['random', randomCheckpoint(pool, 3)],
    ['prior', priorCheckpoint(pool)],
  ] as const) {
    it(`with jpss on, edge probabilities depend on the chosen role; off, they do not (${name})`, async () => {
      const on = await PolicyNetwork.cpu(cp);
      const off = await PolicyNetwork.cpu(cp, { jpss: false });
      const evOn = await on.evaluate(task, state);
      const perRoleOn: number[][] = [];
      for (const r of roles) perRoleOn.push(Array.from(await evOn.edges(r)));
      const evOff = await off.evaluate(task, state);
      const perRoleOff: number[][] = [];
      for (const r of roles) perRoleOff.push(Array.from(await evOff.edges(r)));
      expect(new Set(perRoleOn.map((x) => JSON.stringify(x))).size).toBeGreaterThan(1);
      expect(new Set(perRoleOff.map((x) => JSON.stringify(x))).size).toBe(1);
      expect(perRoleOff[0]).toHaveLength(3);
      // The node head is untouched by the switch.
      expect(Array.from(evOff.probs)).toEqual(Array.from(evOn.probs));
      // The batched sampler agrees with the one-state network under the switch.
      const bat = BatchedPolicy.create(cp, CPU, { maxBatch: roles.length, jpss: false });
      const batched = await bat.edgePass(roles.map((role) => ({ task, state, role })));
      expect(batched.map((x) => Array.from(x))).toEqual(perRoleOff);
      on.dispose();
      off.dispose();
      bat.dispose();
    });
  }
});
