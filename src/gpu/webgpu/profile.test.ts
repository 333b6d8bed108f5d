/**
 * The per-dispatch profile with the device's timestamps (`timestamp-query`, which SwiftShader
 * offers) against the wall-time profile, and the optional features asked for at device creation.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../mlp.ts';
import { OPTIONAL_FEATURES } from './device.ts';
import { GpuModel } from './model.ts';
import { useGpuContext } from '../testing/gpu-context.ts';

const context = useGpuContext();

describe('device features and the timestamp profile', () => {
  it('asks for every optional feature the adapter offers', () => {
    for (const f of OPTIONAL_FEATURES)
      expect(context().device.features.has(f), f).toBe(context().adapter.features.includes(f));
  });

  it('times every dispatch of a step with GPU timestamps, in the order of the wall-time profile', async () => {
    const cfg = { batch: 48, obs: 12, hidden: [20, 20], actions: 6 };
    const p = mlpPolicyGraph(cfg, createRng(5));
    const m = new GpuModel(context(), p.graph, { loss: p.loss, optimizer: { lr: 1e-3 } });
    for (const [k, v] of Object.entries(mlpPolicyInputs(cfg, createRng(6)))) m.setInput(k, v);
    await m.step();
    const wall = await m.profileStep(1);
    const stamped = await m.profileStep(1, { timestamps: true });
    expect(wall.every((d) => d.timer === 'wall')).toBe(true);
    expect(stamped.map((d) => `${d.phase} ${d.kernel}`)).toEqual(wall.map((d) => `${d.phase} ${d.kernel}`));
    const expected = context().device.features.has('timestamp-query') ? 'timestamp' : 'wall';
    expect(stamped.every((d) => d.timer === expected)).toBe(true);
    for (const d of stamped) expect(Number.isFinite(d.ms) && d.ms >= 0).toBe(true);
    expect(stamped.reduce((a, d) => a + d.ms, 0)).toBeGreaterThan(0);
    m.dispose();
  });
});
