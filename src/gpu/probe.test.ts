import { describe, expect, it } from 'vitest';
import { CpuModel } from './cpu/model.ts';
import { PROBE_ADAM, decideBackend, probeWork } from './probe.ts';

const NAME = 'nvidia nvidia-h200';

describe('the auto probe decision', () => {
  it('takes WebGPU when its probe step is faster, with both timings in the reason', () => {
    const d = decideBackend(NAME, 'wasm', { webgpuMs: 1.234, cpuMs: 9.81 });
    expect(d.backend).toBe('webgpu');
    expect(d.reason).toBe(
      'hardware adapter nvidia nvidia-h200: WebGPU 1.2 ms vs wasm 9.8 ms per probe step: WebGPU backend',
    );
  });

  it('takes the CPU side when it is faster, naming the backend it falls back to', () => {
    const w = decideBackend(NAME, 'wasm', { webgpuMs: 31.5, cpuMs: 12.04 });
    expect(w).toEqual({
      backend: 'wasm',
      reason:
        'hardware adapter nvidia nvidia-h200: WebGPU 32 ms vs wasm 12 ms per probe step: WebAssembly SIMD backend',
    });
    const c = decideBackend(NAME, 'cpu', { webgpuMs: 0.9, cpuMs: 0.45 });
    expect(c.backend).toBe('cpu');
    expect(c.reason).toMatch(/WebGPU 0\.90 ms vs cpu 0\.45 ms per probe step: CPU \(TypeScript\) backend$/);
  });

  it('gives a tie to the CPU side', () => {
    expect(decideBackend(NAME, 'wasm', { webgpuMs: 5, cpuMs: 5 }).backend).toBe('wasm');
  });

  it('falls back to the CPU side when the WebGPU probe failed, and says why', () => {
    const d = decideBackend(NAME, 'wasm', null, 'device lost');
    expect(d.backend).toBe('wasm');
    expect(d.reason).toBe(
      'hardware adapter nvidia nvidia-h200: the WebGPU probe step failed (device lost): WebAssembly SIMD backend',
    );
    expect(decideBackend(NAME, 'cpu', { webgpuMs: NaN, cpuMs: 3 }).backend).toBe('cpu');
    expect(decideBackend(NAME, 'cpu', { webgpuMs: 0, cpuMs: 3 }).backend).toBe('cpu');
  });

  it("names a caller's workload unit in the reason, also when WebGPU failed", () => {
    const unit = 'training iteration (64 episodes)';
    const d = decideBackend(NAME, 'wasm', { webgpuMs: 216.4, cpuMs: 61.2 }, '', unit);
    expect(d).toEqual({
      backend: 'wasm',
      reason:
        'hardware adapter nvidia nvidia-h200: WebGPU 216 ms vs wasm 61 ms per training iteration (64 episodes): WebAssembly SIMD backend',
    });
    expect(decideBackend(NAME, 'cpu', null, 'out of memory', unit).reason).toBe(
      'hardware adapter nvidia nvidia-h200: the WebGPU training iteration (64 episodes) failed (out of memory): CPU (TypeScript) backend',
    );
  });

  it('names the WebGPU variant a workload kept, after its time', () => {
    const unit = 'training iteration (64 episodes)';
    const t = { webgpuMs: 141.2, cpuMs: 172.5, webgpuNote: 'rollouts on wasm 141 ms, on WebGPU 212 ms' };
    expect(decideBackend(NAME, 'wasm', t, '', unit)).toEqual({
      backend: 'webgpu',
      reason:
        'hardware adapter nvidia nvidia-h200: WebGPU 141 ms (rollouts on wasm 141 ms, on WebGPU 212 ms) vs wasm 173 ms per training iteration (64 episodes): WebGPU backend',
    });
  });

  it('keeps WebGPU when the CPU side could not be timed', () => {
    expect(decideBackend(NAME, 'wasm', { webgpuMs: 4, cpuMs: NaN }).backend).toBe('webgpu');
  });
});

describe('the probe step', () => {
  it('is seeded, trains and has a finite loss and gradient norm on the CPU backend', async () => {
    const a = probeWork();
    const b = probeWork();
    expect(Object.keys(a.inputs).sort()).toEqual(Object.keys(b.inputs).sort());
    for (const [k, v] of Object.entries(a.inputs)) expect(b.inputs[k]).toEqual(v);
    const m = new CpuModel(a.graph, { loss: a.loss, optimizer: PROBE_ADAM });
    for (const [k, v] of Object.entries(a.inputs)) m.setInput(k, v);
    const r1 = await m.step();
    const r2 = await m.step();
    expect(Number.isFinite(r1.loss)).toBe(true);
    expect(r1.gradNorm).toBeGreaterThan(0);
    // Adam moved the parameters: the second step's loss differs from the first.
    expect(r2.loss).not.toBe(r1.loss);
    m.dispose();
  });
});
