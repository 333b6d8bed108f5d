import { describe, expect, it } from 'vitest';
import type { BackendChoice, BackendPreference } from '../gpu/index.ts';
import { backendAfterLoss, deviceWasLost } from './device-loss.ts';

describe('the backend after a WebGPU device loss', () => {
  it('is WebAssembly SIMD where the engine has it, and the reason says why', async () => {
    const asked: BackendPreference[] = [];
    const choice = await backendAfterLoss((prefer) => {
      asked.push(prefer);
      return Promise.resolve({
        backend: 'wasm',
        reason: 'WebAssembly SIMD backend forced, 2 threads for large matmuls',
        adapter: null,
        ctx: null,
      } satisfies BackendChoice);
    }, 'GPU hung');
    expect(asked).toEqual(['wasm']);
    expect(choice.backend).toBe('wasm');
    expect(choice.reason).toBe(
      'the WebGPU device was lost (GPU hung): continuing on the WebAssembly SIMD backend, 2 threads for large matmuls',
    );
  });

  it('is the TypeScript backend when the engine has no WebAssembly SIMD', async () => {
    const choice = await backendAfterLoss(
      () => Promise.reject(new Error('WebAssembly SIMD is not available')),
      'destroyed',
    );
    expect(choice.backend).toBe('cpu');
    expect(choice.ctx).toBeNull();
    expect(choice.reason).toMatch(/device was lost \(destroyed\), no WebAssembly SIMD: .*TypeScript/);
  });
});

describe('whether a training session lost its WebGPU device', () => {
  const on = (backend: BackendChoice['backend']): BackendChoice => ({
    backend,
    reason: 'test',
    adapter: null,
    ctx: null,
  });
  /** A flag that turns true `ms` after the call (the device's `lost` event settling late). */
  const lateLoss = (ms: number): (() => boolean) => {
    const at = performance.now() + ms;
    return () => performance.now() >= at;
  };

  it('waits for a late loss after a failed iteration (a read-back that failed first)', async () => {
    expect(await deviceWasLost(on('webgpu'), lateLoss(60), true, 1000)).toBe(true);
  });

  it('after a failed iteration without a loss, says no once the grace is over', async () => {
    const t0 = performance.now();
    expect(await deviceWasLost(on('webgpu'), () => false, true, 80)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(75);
  });

  it('after an iteration that went through, waits one macrotask only', async () => {
    expect(await deviceWasLost(on('webgpu'), lateLoss(60), false, 1000)).toBe(false);
    let set = false;
    setTimeout(() => (set = true), 0);
    expect(await deviceWasLost(on('webgpu'), () => set, false, 1000)).toBe(true);
  });

  it('is never true off WebGPU', async () => {
    expect(await deviceWasLost(on('wasm'), () => true, true)).toBe(false);
  });
});
