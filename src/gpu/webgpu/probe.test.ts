/**
 * The `auto` probe on a real adapter (SwiftShader in CI): the software-adapter rule holds, and with
 * the tests-only `probeSoftwareAdapter` the timing path runs: both backends are timed, the faster
 * is chosen, both timings are in the reason, and the timings are measured once per adapter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CpuModel } from '../cpu/model.ts';
import { nodeGpu } from '../node-gpu.ts';
import { PROBE_ADAM, probeWork, type ProbeWorkload } from '../probe.ts';
import { chooseBackend, clearProbeCache } from '../select.ts';
import { GpuContext } from './device.ts';
import { GpuModel } from './model.ts';

afterAll(() => clearProbeCache());

describe('chooseBackend auto with the timing probe', () => {
  it('never picks a software adapter without the probe', async () => {
    const choice = await chooseBackend('auto', { gpu: await nodeGpu() });
    expect(choice.adapter?.software).toBe(true);
    expect(choice.backend).toBe('wasm');
    expect(choice.reason).toMatch(/software adapter/);
    expect(choice.probe).toBeUndefined();
  });

  it('times WebGPU against wasm, keeps the faster and shows both timings', async () => {
    clearProbeCache();
    const gpu = await nodeGpu();
    const choice = await chooseBackend('auto', { gpu, probeSoftwareAdapter: true });
    const p = choice.probe;
    if (!p) throw new Error(`no probe timings: ${choice.reason}`);
    console.log(`[probe] ${choice.backend}: ${choice.reason} (probe ${p.totalMs.toFixed(0)} ms)`);
    expect(p.cpuBackend).toBe('wasm');
    expect(p.webgpuMs).toBeGreaterThan(0);
    expect(p.cpuMs).toBeGreaterThan(0);
    expect(choice.backend).toBe(p.webgpuMs < p.cpuMs ? 'webgpu' : 'wasm');
    expect(choice.reason).toMatch(
      /^hardware adapter .+: WebGPU [\d.]+ ms vs wasm [\d.]+ ms per probe step: /,
    );
    expect(choice.ctx === null).toBe(choice.backend !== 'webgpu');
    // Measured once: a second choice reuses the timings.
    const again = await chooseBackend('auto', { gpu, probeSoftwareAdapter: true });
    expect(again.probe).toBe(p);
    expect(again.reason).toBe(choice.reason);
    choice.ctx?.dispose();
    again.ctx?.dispose();
  });

  it("times a caller's workload instead of the probe step, once per workload key", async () => {
    clearProbeCache();
    const gpu = await nodeGpu();
    const calls: string[] = [];
    const workload = (key: string, gpuMs: number, cpuMs: number): ProbeWorkload => ({
      unit: 'unit of work',
      key,
      time(backend, ctx) {
        calls.push(`${key}:${backend}:${ctx === null ? 'no device' : 'device'}`);
        return Promise.resolve(backend === 'webgpu' ? gpuMs : cpuMs);
      },
    });
    const slow = await chooseBackend('auto', {
      gpu,
      probeSoftwareAdapter: true,
      workload: workload('a', 30, 10),
    });
    expect(slow.backend).toBe('wasm');
    expect(slow.ctx).toBeNull();
    expect(slow.reason).toMatch(/: WebGPU 30 ms vs wasm 10 ms per unit of work: WebAssembly SIMD backend$/);
    expect(slow.probe?.unit).toBe('unit of work');
    const fast = await chooseBackend('auto', {
      gpu,
      probeSoftwareAdapter: true,
      workload: workload('b', 4, 10),
    });
    expect(fast.backend).toBe('webgpu');
    expect(fast.reason).toMatch(/: WebGPU 4\.0 ms vs wasm 10 ms per unit of work: WebGPU backend$/);
    // The same key again: the timings are kept, the workload is not run again.
    const kept = await chooseBackend('auto', {
      gpu,
      probeSoftwareAdapter: true,
      workload: workload('a', 1, 99),
    });
    expect(kept.backend).toBe('wasm');
    expect(calls).toEqual(['a:webgpu:device', 'a:wasm:no device', 'b:webgpu:device', 'b:wasm:no device']);
    fast.ctx?.dispose();
    kept.ctx?.dispose();
  });

  it('keeps the CPU side when the workload fails on WebGPU, and says so', async () => {
    clearProbeCache();
    const choice = await chooseBackend('auto', {
      gpu: await nodeGpu(),
      probeSoftwareAdapter: true,
      workload: {
        unit: 'unit of work',
        key: 'fails',
        time: (backend) =>
          backend === 'webgpu' ? Promise.reject(new Error('pipeline failed')) : Promise.resolve(1),
      },
    });
    expect(choice.backend).toBe('wasm');
    expect(choice.reason).toMatch(
      /: the WebGPU unit of work failed \(pipeline failed\): WebAssembly SIMD backend$/,
    );
  });

  it('times the same step on both sides: WebGPU and the CPU agree on its loss', async () => {
    const ctx = await GpuContext.create({ gpu: await nodeGpu() });
    if (!ctx) throw new Error('no adapter');
    const w = probeWork();
    const opts = { loss: w.loss, optimizer: PROBE_ADAM };
    const g = new GpuModel(ctx, w.graph, opts);
    const c = new CpuModel(w.graph, opts);
    for (const [k, v] of Object.entries(w.inputs)) {
      g.setInput(k, v);
      c.setInput(k, v);
    }
    for (let i = 0; i < 2; i++) {
      const [rg, rc] = [await g.step(), await c.step()];
      expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(rc.loss)));
    }
    g.dispose();
    c.dispose();
    expect(ctx.errors).toEqual([]);
    ctx.dispose();
  });
});
