import { describe, expect, it } from 'vitest';
import type { BackendChoice, BackendPreference } from '../gpu/index.ts';
import { backendAfterLoss } from './device-loss.ts';

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
