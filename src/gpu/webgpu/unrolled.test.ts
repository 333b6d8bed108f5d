/**
 * The serial loops that read four terms at a time before adding them (matmul.wgsl's K loop,
 * col_partial.wgsl and col_rows.wgsl (col_block.wgsl), scatter_partial.wgsl and scatter_rows.wgsl
 * (scatter_chunk.wgsl), reduce.wgsl) add in the same order as one term at a time,
 * so they keep the bits they had: column sums (a bias gradient) of up to 64 rows and scatters of up
 * to 64 sources per row equal the CPU backend's; row reductions equal an f32 sum in increasing column
 * (the CPU backend sums rows in another precision; max equals it). matmul.test.ts holds the K loop
 * to its f32 reference at odd K. Lengths straddle the groups of four (1, 3, 4, 5, 7, 8, 63, 64, 65, 130).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { GpuModel } from './model.ts';
import { useGpuContext } from '../testing/gpu-context.ts';

const context = useGpuContext();

const LENGTHS = [1, 3, 4, 5, 7, 8, 63, 64, 65, 130];

describe('loops that load four terms before adding them', () => {
  it('reduce rows of every width to an f32 sum in increasing column, and to the CPU’s max', async () => {
    for (const cols of LENGTHS) {
      const g = new Graph();
      const x = g.input('x', [9, cols]);
      const [sum, mean, max] = [g.sum(x), g.mean(x), g.reduce('max', x)];
      const data = uniform(createRng(cols), 9 * cols, 3);
      const cpu = new CpuModel(g, {});
      const gpu = new GpuModel(context(), g, {});
      for (const m of [cpu, gpu]) m.setInput('x', data);
      await cpu.step({ backward: false });
      await gpu.step({ backward: false });
      const want = new Float32Array(9);
      const wantMean = new Float32Array(9);
      for (let r = 0; r < 9; r++) {
        let s = 0;
        for (let c = 0; c < cols; c++) s = Math.fround(s + (data[r * cols + c] as number));
        want[r] = s;
        wantMean[r] = Math.fround(s / cols);
      }
      expect(await gpu.read(sum), `sum, width ${cols}`).toEqual(want);
      expect(await gpu.read(mean), `mean, width ${cols}`).toEqual(wantMean);
      expect(await gpu.read(max), `max, width ${cols}`).toEqual(await cpu.read(max));
      gpu.dispose();
    }
  });

  it('sum columns (a bias gradient) of up to 64 rows to the CPU backend’s bits', async () => {
    for (const rows of LENGTHS.filter((n) => n <= 64)) {
      const g = new Graph();
      const bias = g.param('b', [5], uniform(createRng(1), 5, 1));
      const y = g.biasAct(g.input('x', [rows, 5]), bias, 'none');
      const loss = g.sum(g.sum(g.mul(y, g.input('w', [rows, 5]))));
      const cpu = new CpuModel(g, { loss });
      const gpu = new GpuModel(context(), g, { loss });
      for (const m of [cpu, gpu]) {
        m.setInput('x', uniform(createRng(rows), rows * 5, 1));
        m.setInput('w', uniform(createRng(rows + 1), rows * 5, 1));
      }
      await cpu.step();
      await gpu.step();
      expect(await gpu.readGrad(bias), `${rows} rows`).toEqual(await cpu.readGrad(bias));
      gpu.dispose();
    }
  });

  it('scatter rows of up to 64 sources to the CPU backend’s bits', async () => {
    for (const n of LENGTHS.filter((k) => k <= 64)) {
      const g = new Graph();
      // Row 0 takes n sources, row 1 one, row 2 none.
      const idx = g.input('idx', [n + 1], 'u32');
      const src = g.input('src', [n + 1, 6]);
      const out = g.scatterAddRows(src, idx, 3);
      const cpu = new CpuModel(g, {});
      const gpu = new GpuModel(context(), g, {});
      const rng = createRng(n);
      const feed = {
        idx: Uint32Array.from({ length: n + 1 }, (_, i) => (i < n ? 0 : 1)),
        src: uniform(rng, (n + 1) * 6, 1),
      };
      for (const m of [cpu, gpu]) for (const [k, v] of Object.entries(feed)) m.setInput(k, v);
      await cpu.step({ backward: false });
      await gpu.step({ backward: false });
      expect(await gpu.read(out), `${n} sources`).toEqual(await cpu.read(out));
      gpu.dispose();
    }
  });
});
