/**
 * Reductions of a few long rows (reduce_wide.wgsl: one workgroup per row, a strided fold and then
 * a tree in workgroup memory) against the CPU reference's serial fold: max exactly; sums and means
 * bit for bit when every partial sum is exact (small integers), and otherwise within
 * |Δ| ≤ 2⁻²²·√cols·Σ|x|, a bound that a missing or doubled term breaks. Padding rows (live rows)
 * are never read. Runs on a real WebGPU adapter (SwiftShader when there is no GPU).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph, type ReduceOp, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import { paramLayout } from '../layout.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { GpuModel } from './model.ts';
import { buildPlan } from './plan.ts';
import { REDUCE_WIDE_COLS, REDUCE_WIDE_ROWS } from './plan-forward.ts';

const context = useGpuContext();
const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

interface Built {
  g: Graph;
  y: Tensor;
}

/** y = reduce(x) over the last axis of x [rows, cols] (a vector when rows is 0). */
function build(rows: number, cols: number, op: ReduceOp): Built {
  const g = new Graph();
  const x = g.input('x', rows === 0 ? [cols] : [rows, cols]);
  return { g, y: g.reduce(op, x) };
}

async function both(b: Built, x: Float32Array, live?: number): Promise<[Float32Array, Float32Array]> {
  const gpu = new GpuModel(context(), b.g);
  const cpu = new CpuModel(b.g);
  for (const m of [gpu, cpu]) m.setInput('x', x, live);
  const out: Float32Array[] = [];
  for (const m of [gpu, cpu]) out.push((await m.step({ read: [b.y] })).values?.[0] as Float32Array);
  gpu.dispose();
  return [out[0] as Float32Array, out[1] as Float32Array];
}

const ints = (seed: number, n: number): Float32Array => {
  const rng = createRng(seed);
  return Float32Array.from({ length: n }, () => Math.floor(rng.next() * 7) - 3);
};

describe('the plan', () => {
  it('takes reduce_wide for a few long rows and reduce.wgsl otherwise', () => {
    const kernel = (rows: number, cols: number): string => {
      const { g } = build(rows, cols, 'sum');
      return buildPlan(g, paramLayout(g), [], 0)
        .forward.map((c) => c.kernel)
        .join();
    };
    expect(kernel(0, 12288)).toBe('reduce_wide');
    expect(kernel(REDUCE_WIDE_ROWS, REDUCE_WIDE_COLS)).toBe('reduce_wide');
    expect(kernel(REDUCE_WIDE_ROWS + 1, 4096)).toBe('reduce');
    expect(kernel(3, REDUCE_WIDE_COLS - 1)).toBe('reduce');
  });
});

describe('reduce_wide against the CPU', () => {
  for (const [rows, cols] of [
    [0, 512],
    [0, 513],
    [0, 12288],
    [3, 700],
    [16, 1031],
  ] as const) {
    it(`${rows === 0 ? 'a vector' : `${rows} rows`} of ${cols}: sum and mean exact on integers, max exact`, async () => {
      const x = ints(rows * 31 + cols, Math.max(1, rows) * cols);
      for (const op of ['sum', 'mean', 'max'] as const) {
        const [gpu, cpu] = await both(build(rows, cols, op), x);
        expect(bits(gpu), op).toEqual(bits(cpu));
      }
    });
  }

  it('sums floats within 2⁻²²·√cols·Σ|x| of the serial sum, per row', async () => {
    const rows = 5;
    const cols = 9000;
    const x = uniform(createRng(3), rows * cols, 1);
    const [gpu, cpu] = await both(build(rows, cols, 'sum'), x);
    for (let r = 0; r < rows; r++) {
      let abs = 0;
      for (let c = 0; c < cols; c++) abs += Math.abs(x[r * cols + c] as number);
      const bound = 2 ** -22 * Math.sqrt(cols) * abs;
      // One term fewer or twice would be off by about abs / cols, above the bound.
      expect(abs / cols).toBeGreaterThan(bound);
      expect(Math.abs((gpu[r] as number) - (cpu[r] as number))).toBeLessThanOrEqual(bound);
    }
  });

  it('reads only the live part of a padded vector, and only live rows', async () => {
    const x = ints(9, 6000);
    for (let i = 4000; i < 6000; i++) x[i] = 1e6; // padding that must not be read
    const [gpu, cpu] = await both(build(0, 6000, 'sum'), x, 4000);
    expect(bits(gpu)).toEqual(bits(cpu));
    const m = ints(10, 8 * 600);
    for (let i = 5 * 600; i < 8 * 600; i++) m[i] = 1e6;
    const [g2, c2] = await both(build(8, 600, 'max'), m, 5);
    expect(bits(g2.subarray(0, 5))).toEqual(bits(c2.subarray(0, 5)));
  });
});
