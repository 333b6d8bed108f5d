/**
 * One WebGPU context per test file (Dawn in Node: SwiftShader where there is no GPU): opened before
 * the file's tests, and after them checked for uncaptured device errors and disposed.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { nodeGpu } from '../node-gpu.ts';
import { GpuContext } from '../webgpu/device.ts';

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
