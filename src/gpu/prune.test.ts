/**
 * Pruned forward passes (`RunOptions.prune`): a step that reads some tensors runs only the nodes
 * they are computed from, on every backend. Its values are bit for bit a full pass's; it runs fewer
 * nodes (CPU, wasm) or dispatches (WebGPU); and a model that pruned some passes gives, pass after
 * pass and through optimizer updates, exactly the numbers of a model that never pruned: what a
 * pruned pass skipped is computed by the next pass that needs it (on the CPU, the per-edge marks of
 * fresh.ts, including a shared-prefix product whose weight moved in between).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { CpuModel } from './cpu/model.ts';
import { Graph, upstreamOf, type Tensor } from './graph.ts';
import { uniform } from './init.ts';
import type { CompileOptions, Model } from './model.ts';
import { readStep } from './index.ts';
import { createWasmModel } from './wasm/model.ts';
import { GpuModel } from './webgpu/model.ts';
import { useGpuContext } from './testing/gpu-context.ts';

const R = 24; // rows (states)
const D = 12; // features; the first 8 shared by groups of rows (sharedPrefix)
const H = 16;
const A = 5;
const E = 40; // edge rows gathered from the trunk

interface Net {
  g: Graph;
  probs: Tensor;
  edge: Tensor;
  opts: CompileOptions;
}

/** A trunk, a node head (softmax) and an edge head (gather → product), and a loss over both. */
function net(): Net {
  const rng = createRng(7);
  const g = new Graph();
  const x = g.input('x', [R, D]);
  const idx = g.input('idx', [E], 'u32');
  const act = g.input('act', [R], 'u32');
  const w = g.input('w', [R]);
  const ew = g.input('ew', [E, 1]);
  const p = (name: string, shape: number[]): Tensor =>
    g.param(
      name,
      shape,
      uniform(
        rng,
        shape.reduce((a, b) => a * b, 1),
        0.5,
      ),
    );
  const h = g.biasAct(g.matmul(x, p('w1', [D, H])), p('b1', [H]), 'tanh');
  const logits = g.matmul(h, p('wa', [H, A]));
  const probs = g.softmax(logits);
  const logp = g.logSoftmax(logits);
  const edge = g.matmul(g.gatherRows(h, idx), p('wb', [H, 1]));
  const loss = g.add(g.sum(g.mul(g.pick(logp, act), w)), g.sum(g.sum(g.mul(edge, ew))));
  return { g, probs, edge, opts: { loss, optimizer: { lr: 0.05 }, sharedPrefix: { x: 8 } } };
}

/** Inputs number `k`: rows in groups of four share their first 8 features. */
function inputs(k: number): Record<string, Float32Array | Uint32Array> {
  const rng = createRng(100 + k);
  const x = uniform(rng, R * D, 1);
  for (let r = 0; r < R; r++) if (r % 4 !== 0) x.copyWithin(r * D, (r - (r % 4)) * D, (r - (r % 4)) * D + 8);
  return {
    x,
    idx: Uint32Array.from({ length: E }, () => Math.floor(rng.next() * R)),
    act: Uint32Array.from({ length: R }, () => Math.floor(rng.next() * A)),
    w: uniform(rng, R, 1),
    ew: uniform(rng, E, 1),
  };
}

const feed = (m: Model, k: number): void => {
  for (const [name, v] of Object.entries(inputs(k))) m.setInput(name, v);
};
const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

const context = useGpuContext();

/** Each backend's model of a net; `plain` without the shared-prefix hint (a CPU product summed row by row). */
const backends: [string, (n: Net, plain?: boolean) => Promise<Model>][] = [
  ['cpu', (n, plain) => Promise.resolve(new CpuModel(n.g, plain ? { ...n.opts, sharedPrefix: {} } : n.opts))],
  ['wasm', (n, plain) => createWasmModel(n.g, plain ? { ...n.opts, sharedPrefix: {} } : n.opts)],
  ['webgpu', (n) => Promise.resolve(new GpuModel(context(), n.g, n.opts))],
];

describe('upstreamOf', () => {
  it('marks the nodes a tensor is computed from, and no others', () => {
    const { g, probs, edge } = net();
    const need = upstreamOf(g, [probs.id]);
    expect(need[probs.id]).toBe(1);
    expect(need[edge.id]).toBe(0);
    const names = g.nodes
      .filter((n) => need[n.id] === 1 && (n.op.kind === 'input' || n.op.kind === 'param'))
      .map((n) => (n.op.kind === 'input' || n.op.kind === 'param' ? n.op.name : ''));
    expect(names.sort()).toEqual(['b1', 'w1', 'wa', 'x']);
    expect(Array.from(upstreamOf(g, [edge.id, probs.id])).filter((v) => v === 1).length).toBeGreaterThan(
      Array.from(need).filter((v) => v === 1).length,
    );
  });
});

describe.each(backends)('a pruned pass on %s', (name, make) => {
  it('reads what a full pass reads, bit for bit, and runs less', async () => {
    const n = net();
    const [full, pruned] = [await make(n), await make(n)];
    feed(full, 1);
    feed(pruned, 1);
    if (name === 'webgpu') context().resetCounters();
    const a = await readStep(full, [n.probs], { backward: false });
    const fullDispatches = context().resetCounters().dispatches;
    const b = await readStep(pruned, [n.probs], { backward: false, prune: true });
    const prunedDispatches = context().resetCounters().dispatches;
    expect(bits(b.values[0] as Float32Array)).toEqual(bits(a.values[0] as Float32Array));
    expect(Number.isNaN(b.result.loss)).toBe(true);
    expect(Number.isFinite(a.result.loss)).toBe(true);
    if (name === 'webgpu') expect(prunedDispatches).toBeLessThan(fullDispatches);
    else expect((pruned as CpuModel).computed).toBeLessThan((full as CpuModel).computed);
    full.dispose();
    pruned.dispose();
  });

  it('leaves a model that gives, pass after pass and through updates, the numbers of a new one', async () => {
    // The reference for every check is a new model (nothing to reuse) with m's parameters and Adam
    // state, its CPU products summed row by row (the same bits: cpu/ops-matmul.ts): a value m reused
    // when it should have run again, or a stale shared-prefix sum, would show.
    const n = net();
    const m = await make(n);
    const fresh = async (k: number): Promise<Model> => {
      const ref = await make(n, true);
      ref.importState(await m.exportState());
      feed(ref, k);
      return ref;
    };
    const both = async (k: number, read: Tensor[], prune: boolean): Promise<void> => {
      const ref = await fresh(k);
      feed(m, k);
      const want = await readStep(ref, read, { backward: false });
      const got = await readStep(m, read, { backward: false, prune });
      for (const [i, v] of got.values.entries())
        expect(bits(v)).toEqual(bits(want.values[i] as Float32Array));
      ref.dispose();
    };
    const train = async (k: number): Promise<void> => {
      const ref = await fresh(k);
      feed(m, k);
      const [want, got] = [await ref.step(), await m.step()];
      expect(got.loss).toBe(want.loss);
      expect(got.gradNorm).toBe(want.gradNorm);
      ref.dispose();
    };
    await both(1, [n.probs], true);
    await both(1, [n.probs], true); // nothing changed: all reused
    await train(2); // the parameters move; the edge head of m has not run since
    await both(1, [n.edge], true); // the trunk's shared-prefix product must see its new weight
    await both(1, [n.probs], true);
    await both(3, [n.edge, n.probs], true);
    await train(3);
    // Same inputs, moved weights: the shared-prefix product reruns because w1 moved (fresh.ts `moved`).
    await both(3, [n.edge], true);
    await train(1);
    await both(2, [n.probs, n.edge], false);
    await train(2);
    m.dispose();
  });

  it('runs only what changed: a pass after a change to the edge inputs alone runs the edge head', async () => {
    const n = net();
    const m = await make(n);
    feed(m, 1);
    const count = async (): Promise<number> => {
      context().resetCounters();
      await readStep(m, [n.probs, n.edge], { backward: false });
      return name === 'webgpu' ? context().resetCounters().dispatches : (m as CpuModel).computed;
    };
    const first = await count();
    expect(await count()).toBe(0);
    m.setInput('idx', inputs(2).idx as Uint32Array);
    const edgeOnly = await count();
    expect(edgeOnly).toBeGreaterThan(0);
    expect(edgeOnly).toBeLessThan(first);
    m.dispose();
  });
});
