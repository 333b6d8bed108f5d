import { afterEach, describe, expect, it, vi } from 'vitest';
import { Graph, chooseBackend, compile } from '../index.ts';
import { wasmSimdAvailable } from './simd.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

function tinyGraph(): Graph {
  const g = new Graph();
  g.matmul(g.input('a', [2, 3]), g.param('w', [3, 2], new Float32Array(6).fill(0.5)));
  return g;
}

describe('backend choice with WebAssembly SIMD', () => {
  it('auto picks the wasm backend where SIMD exists and there is no adapter, and says why', async () => {
    expect(wasmSimdAvailable()).toBe(true);
    const choice = await chooseBackend('auto');
    expect(choice).toMatchObject({ backend: 'wasm', ctx: null, adapter: null });
    expect(choice.reason).toBe('no WebGPU adapter: WebAssembly SIMD backend');
    const model = await compile(choice, tinyGraph());
    expect(model.backend).toBe('wasm');
    model.setInput('a', Float32Array.from([1, 2, 3, 4, 5, 6]));
    await model.step();
    expect([...(await model.read(model.graph.nodes[2]!))]).toEqual([3, 3, 7.5, 7.5]);
  });

  it('auto falls back to the TypeScript backend when SIMD is missing (simulated: validate says no)', async () => {
    vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    expect(wasmSimdAvailable()).toBe(false);
    const choice = await chooseBackend('auto');
    expect(choice.backend).toBe('cpu');
    expect(choice.reason).toBe('no WebGPU adapter, no WebAssembly SIMD: CPU (TypeScript) backend');
    expect((await compile(choice, tinyGraph())).backend).toBe('cpu');
    await expect(chooseBackend('wasm')).rejects.toThrow(/WebAssembly SIMD is not available/);
  });

  it('an engine without WebAssembly at all is treated as no SIMD (simulated)', () => {
    vi.spyOn(WebAssembly, 'validate').mockImplementation(() => {
      throw new Error('no wasm');
    });
    expect(wasmSimdAvailable()).toBe(false);
  });

  it('wasm and cpu can be forced', async () => {
    expect(await chooseBackend('wasm')).toMatchObject({
      backend: 'wasm',
      reason: 'WebAssembly SIMD backend forced',
    });
    expect((await chooseBackend('cpu')).backend).toBe('cpu');
  });
});
