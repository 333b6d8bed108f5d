import { describe, expect, it } from 'vitest';
import { chooseDevice, type DeviceProbe } from './device.ts';

const node: DeviceProbe = { runtime: 'node', webgpu: null };
const noGpu: DeviceProbe = { runtime: 'browser', webgpu: null };
const gpuF16: DeviceProbe = { runtime: 'browser', webgpu: { fallback: false, f16: true, name: 'laptop' } };
const gpuNoF16: DeviceProbe = { runtime: 'browser', webgpu: { fallback: false, f16: false } };
const swiftshader: DeviceProbe = { runtime: 'browser', webgpu: { fallback: true, f16: false } };

describe('chooseDevice', () => {
  it('Node runs on the CPU and refuses browser devices', () => {
    expect(chooseDevice('auto', ['q4f16', 'q4'], 'auto', node)).toMatchObject({
      ok: true,
      device: 'cpu',
      dtype: 'q4',
    });
    expect(chooseDevice('webgpu', ['q4'], 'auto', node)).toMatchObject({ ok: false });
  });

  it('auto: webgpu with the first dtype the adapter suits', () => {
    expect(chooseDevice('auto', ['q4f16', 'q4'], 'auto', gpuF16)).toMatchObject({
      device: 'webgpu',
      dtype: 'q4f16',
    });
    expect(chooseDevice('auto', ['q4f16', 'q4'], 'auto', gpuNoF16)).toMatchObject({
      device: 'webgpu',
      dtype: 'q4',
    });
  });

  it('auto: wasm without an adapter, on a software adapter, or when only f16 kinds are offered; says why', () => {
    const a = chooseDevice('auto', ['q8'], 'auto', noGpu);
    expect(a).toMatchObject({ device: 'wasm', dtype: 'q8' });
    expect(a.ok && a.reason).toMatch(/no WebGPU adapter/);
    const b = chooseDevice('auto', ['q8'], 'auto', swiftshader);
    expect(b.ok && b.reason).toMatch(/software fallback/);
    expect(chooseDevice('auto', ['q4f16'], 'auto', gpuNoF16)).toMatchObject({ ok: false });
  });

  it('honours what is asked, or says why not', () => {
    expect(chooseDevice('webgpu', ['q4'], 'auto', swiftshader)).toMatchObject({ ok: true, device: 'webgpu' });
    expect(chooseDevice('webgpu', ['q4'], 'auto', noGpu)).toMatchObject({ ok: false });
    expect(chooseDevice('wasm', ['q4f16', 'q8'], 'auto', gpuF16)).toMatchObject({
      device: 'wasm',
      dtype: 'q8',
    });
    expect(chooseDevice('wasm', ['q4f16'], 'q4f16', gpuF16)).toMatchObject({ ok: false });
    expect(chooseDevice('auto', ['q8'], 'fp32', noGpu)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/no fp32 files/),
    });
    expect(chooseDevice('cpu', ['q8'], 'auto', noGpu)).toMatchObject({ ok: false });
  });
});
