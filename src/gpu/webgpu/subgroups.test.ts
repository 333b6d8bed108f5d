/**
 * The subgroup twins (kernels.ts SUBGROUP_TWINS: matmul_lanes, reduce_wide, grad_norm_partial,
 * grad_norm on tree_sg.wgsl) against their kernels on tree.wgsl, bit for bit, on the WebGPU adapter
 * the suite finds (SwiftShader without a GPU, whose Vulkan driver offers `subgroups` with 4-wide
 * subgroups). The SG_MAX override caps the levels done by shuffles, so each path runs here: 1 (the
 * workgroup-memory tree alone), 2 (one shuffled level), and the adapter's own width (every level
 * below it shuffled; with LK = 4 the whole tree). Then whole models with and without the twins:
 * the same losses, norms and parameters, and the plan's default.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { useGpuContext } from '../testing/gpu-context.ts';
import { runCalls } from '../testing/products.ts';
import { bits, feed, net } from '../testing/two-heads.ts';
import { KERNELS, SUBGROUP_TWINS, type KernelName } from './kernels.ts';
import { GpuModel } from './model.ts';
import { PipelineCache } from './pipelines.ts';
import { gradNormCalls, subgroupTwins } from './plan.ts';
import { baseKernel, lanesCall, lanesOf, val, type Call } from './plan-calls.ts';
import { reduceCall } from './plan-forward.ts';

const gpu = useGpuContext();
let cache: PipelineCache | null = null;
const pipelines = (): PipelineCache => (cache ??= new PipelineCache(gpu().device));

/** The calls on their twins, with SG_MAX set. */
const twinned = (calls: Call[], SG_MAX: number): Call[] =>
  subgroupTwins(calls).map((c) =>
    c.kernel.endsWith('_sg') ? { ...c, constants: { ...c.constants, SG_MAX } } : c,
  );

/** Runs `calls` plain, then on their twins at every SG_MAX; every run gives the plain run's bits. */
async function sameBits(calls: Call[], A: Float32Array, B: Float32Array, C0: Float32Array): Promise<void> {
  const device = gpu().device;
  const plain = await runCalls(device, pipelines(), calls, A, B, C0);
  expect(twinned(calls, 64).some((c) => c.kernel.endsWith('_sg'))).toBe(true);
  for (const SG_MAX of [1, 2, 64]) {
    const twin = await runCalls(device, pipelines(), twinned(calls, SG_MAX), A, B, C0);
    expect(bits(twin), `SG_MAX = ${SG_MAX}`).toEqual(bits(plain));
  }
}

describe('the subgroup twins give their kernels’ bits', () => {
  it('the adapter offers subgroups, of power-of-two sizes', () => {
    const device = gpu().device;
    expect(device.features.has('subgroups')).toBe(true);
    const info = device.adapterInfo as GPUAdapterInfo & {
      subgroupMinSize?: number;
      subgroupMaxSize?: number;
    };
    const sizes = [info.subgroupMinSize, info.subgroupMaxSize];
    console.log(`[subgroups] subgroup sizes ${sizes.join('–')}`);
    for (const size of sizes) expect(size !== undefined && size > 0 && (size & (size - 1)) === 0).toBe(true);
  });

  // Two of the eight transpose and accumulation forms per shape (each form twice in all): every
  // form is its own pipeline per SG_MAX, and SwiftShader compiles each for about half a second.
  const shapes = [
    [5, 7, 16],
    [3, 9, 20],
    [64, 12, 64],
    [33, 17, 100],
    [18, 32, 768],
    [37, 29, 1000],
    [1, 1, 1024],
    [40, 3, 333],
  ] as const;
  shapes.forEach(([m, n, k], i) => {
    const forms = [i, (i + 3) % 8].map((f) => ({ ta: (f & 1) === 1, tb: (f & 2) === 2, acc: (f & 4) === 4 }));
    const named = forms.map((f) => `${+f.ta}${+f.tb}${f.acc ? '+=' : '='}`).join(', ');
    it(`lanes products ${m}x${n}, K = ${k} (${lanesOf(k)} lanes), forms ${named}`, async () => {
      const rng = createRng(m * 5 + n + k);
      const A = uniform(rng, m * k, 1);
      const B = uniform(rng, k * n, 1);
      const C0 = uniform(rng, m * n, 1);
      for (const { ta, tb, acc } of forms)
        await sameBits([lanesCall([val(0), val(1), val(2)], m, n, k, 1, ta, tb, acc)], A, B, C0);
    });
  });

  it('a batch of lanes products, and a live K of zero', async () => {
    const [batch, m, n, k] = [3, 9, 6, 48];
    const rng = createRng(4);
    const A = uniform(rng, batch * m * k, 1);
    const B = uniform(rng, batch * k * n, 1);
    const C0 = uniform(rng, batch * m * n, 1);
    const call = lanesCall([val(0), val(1), val(2)], m, n, k, batch, false, true, true);
    await sameBits([call], A, B, C0);
    await sameBits([{ ...call, uniform: [m, n, 0, batch] }], A, B, C0);
  });

  for (const [rows, cols] of [
    [1, 512],
    [1, 12288],
    [5, 9000],
    [16, 1031],
  ] as const) {
    it(`reduce_wide over ${rows} row(s) of ${cols}: sum, mean and max`, async () => {
      const x = uniform(createRng(rows + cols), rows * cols, 1);
      for (const op of [0, 1, 2]) {
        const call = reduceCall(val(0), val(2), rows, cols, op);
        expect(call.kernel).toBe('reduce_wide');
        await sameBits([call], x, new Float32Array(4), new Float32Array(rows));
      }
    });
  }

  for (const total of [1, 4097, 1_000_003]) {
    it(`the gradient norm of ${total} floats, both levels`, async () => {
      const g = uniform(createRng(total), total, 1);
      // The arena and the norm output as plain buffers (runCalls binds val(0) and val(2)).
      const calls = gradNormCalls(total, 0.5).map((c) => ({
        ...c,
        refs: c.refs.map((r) => (r.t === 'arena' ? val(0) : r.t === 'norm' ? val(2) : r)),
      }));
      await sameBits(calls, g, new Float32Array(4), new Float32Array(2));
    });
  }
});

describe('the plan and models with subgroup twins', () => {
  it('every twin is a kernel of its own, named after its kernel', () => {
    for (const [kernel, twin] of Object.entries(SUBGROUP_TWINS)) {
      expect(KERNELS[twin]).toContain('enable subgroups;');
      expect(KERNELS[twin]).toContain('subgroupShuffleXor');
      expect(KERNELS[kernel as KernelName]).not.toContain('enable subgroups');
      expect(baseKernel(twin)).toBe(kernel);
    }
    expect(baseKernel('matmul')).toBe('matmul');
  });

  it('are used where a model asks for them, not by default', () => {
    const { g, opts } = net();
    const plan = (m: GpuModel): string => JSON.stringify((m as unknown as { plan: unknown }).plan);
    const ctx = gpu();
    const dflt = new GpuModel(ctx, g, { ...opts, lanes: true });
    const on = new GpuModel(ctx, g, { ...opts, lanes: true, subgroups: true });
    const off = new GpuModel(ctx, g, { ...opts, lanes: true, subgroups: false });
    expect(plan(dflt)).toBe(plan(off));
    for (const twin of ['matmul_lanes_sg', 'grad_norm_partial_sg', 'grad_norm_sg'])
      expect([plan(on).includes(`"${twin}"`), plan(off).includes(`"${twin}"`)], twin).toEqual([true, false]);
    expect(plan(off)).toContain('"matmul_lanes"');
    for (const m of [dflt, on, off]) m.dispose();
  });

  it('train with the bits of models without them', async () => {
    const n = net();
    const models = [true, false].map(
      (subgroups) => new GpuModel(gpu(), n.g, { ...n.opts, lanes: true, subgroups }),
    );
    for (let k = 0; k < 4; k++) {
      for (const m of models) feed(m, k);
      const [a, b] = [await models[0]!.step(), await models[1]!.step()];
      expect([a.loss, a.gradNorm], `step ${k}`).toEqual([b.loss, b.gradNorm]);
    }
    for (const p of n.g.params())
      expect(bits(await models[0]!.read(p))).toEqual(bits(await models[1]!.read(p)));
    for (const m of models) m.dispose();
  });

  it('a loss summed over a long vector (reduce_wide) trains with the same bits', async () => {
    const R = 3000;
    const g = new Graph();
    const x = g.input('x', [R, 8]);
    const w = g.param('w', [8, 4], uniform(createRng(1), 32, 0.5));
    const loss = g.sum(g.sum(g.mul(g.matmul(x, w), g.input('t', [R, 4]))));
    const xs = uniform(createRng(2), R * 8, 1);
    const ts = uniform(createRng(3), R * 4, 1);
    const models = [true, false].map(
      (subgroups) => new GpuModel(gpu(), g, { loss, optimizer: { lr: 0.01 }, subgroups }),
    );
    const kernels = JSON.stringify((models[0] as unknown as { plan: unknown }).plan);
    expect(kernels).toContain('"reduce_wide_sg"');
    for (let k = 0; k < 3; k++) {
      const live = k === 2 ? 1777 : R;
      for (const m of models) {
        m.setInput('x', xs, live);
        m.setInput('t', ts, live);
      }
      const [a, b] = [await models[0]!.step(), await models[1]!.step()];
      expect([a.loss, a.gradNorm], `step ${k}`).toEqual([b.loss, b.gradNorm]);
    }
    expect(bits(await models[0]!.read(w))).toEqual(bits(await models[1]!.read(w)));
    for (const m of models) m.dispose();
  });
});
