/**
 * The global gradient norm in two levels (grad_norm_partial.wgsl per block of 4096 floats, then
 * grad_norm.wgsl over the block sums) against the CPU backend's norm (optimizer.ts adamStep, an f64
 * sum) on the WebGPU adapter the suite finds: n from 1 to millions and odd, random and
 * constant-magnitude gradients, clipNorm ≤ 0 and > 0. Tolerance (grad_norm.wgsl,
 * docs/compute-core.md): |Δ‖g‖| ≤ 2⁻¹⁸·‖g‖.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { nodeGpu } from '../node-gpu.ts';
import { adamStep, clipScale, resolveAdam } from '../optimizer.ts';
import { GpuContext } from './device.ts';
import { GpuModel } from './model.ts';
import { PipelineCache } from './pipelines.ts';
import { gradNormCalls, NORM_BLOCK } from './plan.ts';

let ctx: GpuContext;
let cache: PipelineCache;

beforeAll(async () => {
  const c = await GpuContext.create({ gpu: await nodeGpu() });
  if (!c) throw new Error('no WebGPU adapter: install libvulkan1 and chromium (SwiftShader) or run on a GPU');
  ctx = c;
  cache = new PipelineCache(ctx.device);
});

afterAll(() => {
  expect(ctx.errors).toEqual([]);
  ctx.dispose();
});

const TOL = 2 ** -18;

/** Runs the plan's norm calls on g; returns [‖g‖₂, clip scale]. */
async function gpuNorm(g: Float32Array, clipNorm: number): Promise<[number, number]> {
  const device = ctx.device;
  const owned: GPUBuffer[] = [];
  const buf = (bytes: number, usage: number): GPUBuffer => {
    const b = device.createBuffer({ size: Math.max(16, bytes), usage });
    owned.push(b);
    return b;
  };
  const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST;
  const grads = buf(g.byteLength, S);
  device.queue.writeBuffer(grads, 0, g);
  const out = buf(8, S | GPUBufferUsage.COPY_SRC);
  device.queue.writeBuffer(out, 0, new Float32Array([NaN, NaN]));
  const calls = gradNormCalls(g.length, clipNorm);
  const partialRef = calls[0]?.refs[1];
  if (partialRef?.t !== 'temp') throw new Error('no block sums');
  const partial = buf(partialRef.floats * 4, S);
  device.queue.writeBuffer(partial, 0, new Float32Array(partialRef.floats).fill(NaN));
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  for (const c of calls) {
    const u = buf(16, GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST);
    device.queue.writeBuffer(u, 0, new Uint32Array([...c.uniform, 0, 0]));
    const resources = c.refs.map((r) => (r.t === 'arena' ? grads : r.t === 'temp' ? partial : out));
    const pipeline = cache.get(c.kernel, c.constants);
    pass.setPipeline(pipeline);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [u, ...resources].map((buffer, binding) => ({ binding, resource: { buffer } })),
      }),
    );
    pass.dispatchWorkgroups(...c.wg);
  }
  pass.end();
  const read = buf(8, GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST);
  enc.copyBufferToBuffer(out, 0, read, 0, 8);
  device.queue.submit([enc.finish()]);
  await read.mapAsync(GPUMapMode.READ);
  const [norm, scale] = new Float32Array(read.getMappedRange().slice(0));
  read.unmap();
  for (const b of owned) b.destroy();
  return [norm as number, scale as number];
}

/** The CPU backend's norm and clip scale (adamStep on copies returns the unclipped norm). */
function cpuNorm(g: Float32Array, clipNorm: number): [number, number] {
  const z = () => new Float32Array(g.length);
  const norm = adamStep(z(), g.slice(), z(), z(), 1, resolveAdam({ lr: 0, clipNorm }));
  return [norm, clipScale(norm, clipNorm)];
}

describe('two-level gradient norm', () => {
  it('plans one workgroup per block of 4096 floats, then one workgroup', () => {
    for (const n of [1, 4096, 4097, 3_500_000]) {
      const [partial, total] = gradNormCalls(n, 1);
      expect(partial?.kernel).toBe('grad_norm_partial');
      expect(partial?.wg).toEqual([Math.ceil(n / NORM_BLOCK), 1, 1]);
      expect(total?.kernel).toBe('grad_norm');
      expect(total?.wg).toEqual([1, 1, 1]);
    }
    // Past 65535 blocks the grid folds into y.
    expect(gradNormCalls(65536 * NORM_BLOCK + 1, 1)[0]?.wg).toEqual([65535, 2, 1]);
  });

  const sizes = [1, 255, 4095, 4097, 100_003, 1_000_003, 4_194_305];
  for (const n of sizes) {
    it(`n = ${n}: norm and clip scale within 2⁻¹⁸ of the CPU, clipNorm ≤ 0 and > 0`, async () => {
      const rng = createRng(n);
      const random = uniform(rng, n, 1);
      // Equal magnitudes: one long sequential f32 run drifts (each add rounds the same way).
      const constant = Float32Array.from({ length: n }, (_, i) => (i % 3 === 0 ? -0.1 : 0.1));
      for (const [label, g] of [
        ['random', random],
        ['constant', constant],
      ] as const) {
        const [cn] = cpuNorm(g, 0);
        for (const clip of [0, -1, cn / 3, cn * 2]) {
          const [gn, gs] = await gpuNorm(g, clip);
          const [, cs] = cpuNorm(g, clip);
          expect(Math.abs(gn - cn), `${label} norm, clip ${clip}`).toBeLessThanOrEqual(TOL * cn);
          if (clip <= 0 || clip >= cn) expect(gs, `${label} scale, clip ${clip}`).toBe(1);
          else expect(Math.abs(gs - cs), `${label} scale, clip ${clip}`).toBeLessThanOrEqual(TOL * cs);
        }
      }
    });
  }

  it('a zero gradient has norm 0 and scale 1', async () => {
    expect(await gpuNorm(new Float32Array(10_000), 1)).toEqual([0, 1]);
  });

  it('a model with 1.2 M parameters reports the CPU’s norm and clips like it', async () => {
    const rng = createRng(4);
    const g = new Graph();
    const w = g.param('w', [1200, 1000], uniform(rng, 1_200_000, 0.1));
    const x = g.input('x', [1200, 1000]);
    const loss = g.sum(g.sum(g.mul(g.unary('tanh', w), x)));
    const xs = uniform(rng, 1_200_000, 1);
    for (const clipNorm of [0, 5]) {
      const opt = { lr: 0.01, clipNorm };
      const gpu = new GpuModel(ctx, g, { loss, optimizer: opt });
      const cpu = new CpuModel(g, { loss, optimizer: opt });
      gpu.setInput('x', xs);
      cpu.setInput('x', xs);
      const [rg, rc] = [await gpu.step(), await cpu.step()];
      expect(rc.gradNorm).toBeGreaterThan(5);
      expect(Math.abs(rg.gradNorm - rc.gradNorm), `clip ${clipNorm}`).toBeLessThanOrEqual(TOL * rc.gradNorm);
      // Adam's first step moves each parameter by about lr·sign(g); clipping scales g before m and v.
      const [pg, pc] = [await gpu.read(w), await cpu.read(w)];
      let worst = 0;
      for (let i = 0; i < pg.length; i++)
        worst = Math.max(worst, Math.abs((pg[i] as number) - (pc[i] as number)));
      expect(worst, `clip ${clipNorm}`).toBeLessThan(1e-5);
      gpu.dispose();
    }
  });
});
