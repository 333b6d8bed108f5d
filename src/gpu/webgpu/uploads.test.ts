/**
 * What `setInput` uploads on WebGPU: only the live rows of an input that changed (its padding is
 * read by no live result), while the host copy stays what the device holds — so when the live
 * rows grow again, or a step in flight keeps the old array, the rows that come back are compared
 * against the device's real contents. Results are checked against the CPU backend, bit for bit
 * (an element-wise product: one rounding on both).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { bits } from '../testing/two-heads.ts';
import { GpuModel } from './model.ts';

const context = useGpuContext();
const R = 64;
const C = 8;

function build() {
  const g = new Graph();
  const x = g.input('x', [R, C]);
  return { g, h: g.mul(x, x) };
}

/** Rows of `x` from seed `seed`; rows ≥ `live` are NaN (padding: read by no live result). */
function rows(seed: number, live: number, from?: Float32Array): Float32Array {
  const rng = createRng(seed);
  return Float32Array.from({ length: R * C }, (_, i) =>
    i < live * C ? rng.next() - 0.5 : from ? (from[i] as number) : NaN,
  );
}

describe('setInput uploads on WebGPU', () => {
  it('uploads the live rows that changed, and keeps its host copy equal to the device', async () => {
    const ctx = context();
    const { g, h } = build();
    const gpu = new GpuModel(ctx, g);
    const cpu = new CpuModel(g);
    const check = async (x: Float32Array, live: number): Promise<void> => {
      const [a, b] = [await gpu.step({ read: [h] }), await cpu.step({ read: [h] })];
      const got = (a.values?.[0] as Float32Array).subarray(0, live * C);
      expect(bits(got)).toEqual(bits((b.values?.[0] as Float32Array).subarray(0, live * C)));
      expect(got.every(Number.isFinite)).toBe(true);
      expect(x.length).toBe(R * C);
    };
    const all = rows(1, R);
    gpu.setInput('x', all);
    cpu.setInput('x', all);
    await check(all, R);

    // 5 live rows of new data, NaN padding: 5 rows uploaded, not 64.
    const few = rows(2, 5);
    ctx.resetCounters();
    gpu.setInput('x', few, 5);
    expect(ctx.counters.writeBytes).toBe(5 * C * 4);
    cpu.setInput('x', few, 5);
    await check(few, 5);

    // All rows live again: the first 5 new, the rest equal to what the device still holds from
    // `all` (the host copy kept them), so only the first 5 rows are uploaded — and the results are
    // those of the whole new input.
    const back = rows(3, 5, all);
    ctx.resetCounters();
    gpu.setInput('x', back);
    expect(ctx.counters.writeBytes).toBe(5 * C * 4);
    cpu.setInput('x', back);
    await check(back, R);

    // The same, with a step in flight holding the input: the copy it keeps and the new host copy
    // both stay what the device held.
    const pending = gpu.step({ read: [h] });
    const again = rows(4, 3, back);
    gpu.setInput('x', again);
    cpu.setInput('x', again);
    await pending;
    await check(again, R);
    ctx.resetCounters();
    gpu.setInput('x', back);
    expect(ctx.counters.writeBytes).toBe(3 * C * 4);
    cpu.setInput('x', back);
    await check(back, R);
    gpu.dispose();
  });

  it('copies an input that a step in flight holds into an array that no step holds any more', async () => {
    const ctx = context();
    const { g, h } = build();
    const gpu = new GpuModel(ctx, g);
    const cpu = new CpuModel(g);
    const id = g.inputs()[0]?.id as number;
    const expected = async (x: Float32Array): Promise<number[]> => {
      cpu.setInput('x', x);
      return bits((await cpu.step({ read: [h] })).values?.[0] as Float32Array);
    };
    const [v1, v2, v3, v4] = [11, 12, 13, 14].map((seed) => rows(seed, R));
    gpu.setInput('x', v1 as Float32Array);
    // A step holds v1's array: v2 is written into a copy (new: no spare yet).
    const a = gpu.step({ read: [h] });
    gpu.setInput('x', v2 as Float32Array);
    expect(gpu.held.sparesOf(id)).toBe(0);
    const b = gpu.step({ read: [h] });
    const got1 = bits((await a).values?.[0] as Float32Array);
    // Step a settled: v1's array is no step's and not the input's now, so it is a spare.
    expect(gpu.held.sparesOf(id)).toBe(1);
    // Step b holds v2's array: v3 goes into the spare.
    gpu.setInput('x', v3 as Float32Array);
    expect(gpu.held.sparesOf(id)).toBe(0);
    const c = gpu.step({ read: [h] });
    gpu.setInput('x', v4 as Float32Array);
    const [got2, got3] = [await b, await c].map((r) => bits(r.values?.[0] as Float32Array));
    const got4 = bits((await gpu.step({ read: [h] })).values?.[0] as Float32Array);
    // Every step computed with the input it was called with.
    expect([got1, got2, got3, got4]).toEqual([
      await expected(v1 as Float32Array),
      await expected(v2 as Float32Array),
      await expected(v3 as Float32Array),
      await expected(v4 as Float32Array),
    ]);
    gpu.dispose();
  });
});
