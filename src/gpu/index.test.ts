import { describe, expect, it, vi } from 'vitest';

/** Which WebGPU modules have been loaded, in order. The mocks below record every first load. */
const loaded = vi.hoisted((): string[] => []);

vi.mock('./webgpu/device.ts', async (importOriginal) => {
  loaded.push('webgpu/device');
  return importOriginal();
});
vi.mock('./webgpu/model.ts', () => {
  loaded.push('webgpu/model');
  // A stand-in backend: what matters here is when the module loads, not what it computes.
  class GpuModel {
    constructor(
      readonly ctx: unknown,
      readonly graph: unknown,
    ) {}
  }
  return { GpuModel };
});

describe('the compute core front door', () => {
  it('loads WebGPU code only inside chooseBackend and compile, when WebGPU is asked for', async () => {
    const gpu = await import('./index.ts');
    expect(loaded).toEqual([]);

    const g = new gpu.Graph();
    g.unary('exp', g.input('x', [1, 2]));
    const cpu = await gpu.chooseBackend('cpu');
    const model = await gpu.compile(cpu, g);
    expect(model.backend).toBe('cpu');
    expect(loaded).toEqual([]);

    // Node has no navigator.gpu: `auto` loads the device module, finds no adapter, takes the CPU
    // side (the WebAssembly SIMD backend: src/gpu/wasm/select.test.ts).
    expect(await gpu.chooseBackend('auto')).toMatchObject({ backend: 'wasm', ctx: null });
    expect(loaded).toEqual(['webgpu/device']);

    const ctx = {} as NonNullable<Awaited<ReturnType<typeof gpu.chooseBackend>>['ctx']>;
    const onGpu = await gpu.compile({ backend: 'webgpu', reason: 'test', adapter: null, ctx }, g);
    expect(onGpu).toMatchObject({ ctx, graph: g });
    expect(loaded).toEqual(['webgpu/device', 'webgpu/model']);
  });
});
