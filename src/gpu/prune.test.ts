/**
 * Pruned forward passes (`RunOptions.prune`): a step that reads some tensors runs only the nodes
 * they are computed from, on every backend. Its values are bit for bit a full pass's; it runs fewer
 * nodes (CPU, wasm) or dispatches (WebGPU); and a model that pruned some passes gives, pass after
 * pass and through optimizer updates, exactly the numbers of a model that never pruned: what a
 * pruned pass skipped is computed by the next pass that needs it (on the CPU, the per-edge marks of
 * fresh.ts, including a shared-prefix product whose weight moved in between).
 */
import { describe, expect, it } from 'vitest';
import { CpuModel } from './cpu/model.ts';
import { upstreamOf, type Tensor } from './graph.ts';
import type { Model } from './model.ts';
import { readStep } from './index.ts';
import { createWasmModel } from './wasm/model.ts';
import { GpuModel } from './webgpu/model.ts';
import { useGpuContext } from './testing/gpu-context.ts';
import { bits, feed, inputs, net, type Net } from './testing/two-heads.ts';

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
