/**
 * One WebGPU context per test file (Dawn in Node: SwiftShader where there is no GPU): opened before
 * the file's tests, and after them checked for uncaptured device errors and disposed.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { nodeGpu } from '../node-gpu.ts';
import { GpuContext } from '../webgpu/device.ts';
import type { GpuModel } from '../webgpu/model.ts';

/** Registers the file's hooks; the returned function gives the context inside tests. */
export function useGpuContext(): () => GpuContext {
  let ctx: GpuContext | null = null;
  beforeAll(async () => {
    ctx = await GpuContext.create({ gpu: await nodeGpu() });
    if (!ctx) throw new Error('no WebGPU adapter');
  });
  afterAll(() => {
    expect(ctx?.errors).toEqual([]);
    ctx?.dispose();
  });
  return () => {
    if (!ctx) throw new Error('the WebGPU context is opened before the tests run');
    return ctx;
  };
}

/**
 * Steps `steady` (on the shared context) and a model compiled alike on a context of its own, fed
 * alike by `feed(model, k)`, three times; the second context's device is destroyed before the
 * third step. Each step's loss and gradient norm, the recovery count and every parameter's bits
 * must equal the steady model's.
 */
export async function expectRecovery(
  steady: GpuModel,
  compile: (ctx: GpuContext) => GpuModel,
  feed: (m: GpuModel, k: number) => void,
): Promise<void> {
  const lostCtx = await GpuContext.create({ gpu: await nodeGpu() });
  if (!lostCtx) throw new Error('no WebGPU adapter');
  const lost = compile(lostCtx);
  for (let k = 0; k < 3; k++) {
    for (const m of [steady, lost]) feed(m, k);
    if (k === 2) {
      const gone = lostCtx.device.lost;
      lostCtx.device.destroy();
      await gone;
    }
    const [rs, rl] = [await steady.step(), await lost.step()];
    expect([rl.loss, rl.gradNorm], `step ${k}`).toEqual([rs.loss, rs.gradNorm]);
  }
  expect(lost.recoveries).toBe(1);
  const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));
  for (const p of steady.graph.params()) expect(bits(await lost.read(p))).toEqual(bits(await steady.read(p)));
  lost.dispose();
  lostCtx.dispose();
}
