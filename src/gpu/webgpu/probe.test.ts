/**
 * The `auto` probe on a real adapter (SwiftShader in CI): the software-adapter rule holds, and with
 * the tests-only `probeSoftwareAdapter` the timing path runs: both backends are timed, the faster
 * is chosen, both timings are in the reason, and the timings are measured once per adapter.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { CpuModel } from '../cpu/model.ts';
import { nodeGpu } from '../node-gpu.ts';
import { PROBE_ADAM, probeWork } from '../probe.ts';
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
