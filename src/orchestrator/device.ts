/**
 * Where a model runs and in which dtype, with the reason a person reads. Pure: the caller probes
 * the environment (is this Node, is there a WebGPU adapter, does it have `shader-f16`) and this
 * decides. Rules:
 *
 * - Node runs on onnxruntime-node's CPU provider (`cpu`); `wasm` and `webgpu` are browser devices.
 * - In the browser `auto` picks `webgpu` when an adapter exists and one of the entry's dtypes suits
 *   it (fp16 kinds need `shader-f16`), else `wasm`. A software adapter (SwiftShader, reported as a
 *   fallback adapter) is slower than wasm, so `auto` prefers wasm there too and says why.
 * - The dtype is the one asked for, or the entry's first that the device suits: q4f16/fp16 only
 *   where 16-bit floats run on the GPU, since wasm and the CPU compute them in software.
 */
import { F16_DTYPES, type Dtype } from './manifest.ts';

export type DevicePreference = 'auto' | 'webgpu' | 'wasm' | 'cpu';
export type Device = 'webgpu' | 'wasm' | 'cpu';

export interface DeviceProbe {
  runtime: 'node' | 'browser';
  /** null: the compute core found no WebGPU adapter (or the runtime is Node). */
  webgpu: null | { fallback: boolean; f16: boolean; name?: string };
}

export type DeviceChoice =
  { ok: true; device: Device; dtype: Dtype; reason: string } | { ok: false; message: string };

const suits = (device: Device, dtype: Dtype, probe: DeviceProbe): boolean =>
  !F16_DTYPES.includes(dtype) || (device === 'webgpu' && probe.webgpu?.f16 === true);

export function chooseDevice(
  prefer: DevicePreference,
  dtypes: readonly Dtype[],
  dtypeAsked: Dtype | 'auto',
  probe: DeviceProbe,
): DeviceChoice {
  if (dtypeAsked !== 'auto' && !dtypes.includes(dtypeAsked))
    return { ok: false, message: `the model has no ${dtypeAsked} files (it offers ${dtypes.join(', ')})` };
  const pickDtype = (device: Device): Dtype | null =>
    dtypeAsked !== 'auto'
      ? suits(device, dtypeAsked, probe)
        ? dtypeAsked
        : null
      : (dtypes.find((d) => suits(device, d, probe)) ?? null);
  const noDtype = (device: Device): DeviceChoice => ({
    ok: false,
    message:
      dtypeAsked === 'auto'
        ? `none of the model's dtypes (${dtypes.join(', ')}) runs on ${device}: 16-bit floats need WebGPU with shader-f16`
        : `${dtypeAsked} does not run on ${device}: 16-bit floats need WebGPU with shader-f16`,
  });

  if (probe.runtime === 'node') {
    if (prefer === 'wasm' || prefer === 'webgpu')
      return {
        ok: false,
        message: `${prefer} is a browser device; in Node the model runs on the CPU (--device cpu)`,
      };
    const dtype = pickDtype('cpu');
    if (!dtype) return noDtype('cpu');
    return {
      ok: true,
      device: 'cpu',
      dtype,
      reason: prefer === 'cpu' ? 'cpu, as asked' : 'Node: onnxruntime on the CPU',
    };
  }

  if (prefer === 'cpu')
    return { ok: false, message: 'cpu is the Node device; in the browser use wasm or webgpu' };
  if (prefer === 'webgpu') {
    if (!probe.webgpu) return { ok: false, message: 'this browser has no WebGPU adapter; use wasm' };
    const dtype = pickDtype('webgpu');
    if (!dtype) return noDtype('webgpu');
    return { ok: true, device: 'webgpu', dtype, reason: 'webgpu, as asked' };
  }
  if (prefer === 'wasm') {
    const dtype = pickDtype('wasm');
    if (!dtype) return noDtype('wasm');
    return { ok: true, device: 'wasm', dtype, reason: 'wasm, as asked' };
  }
  // auto
  const gpu = probe.webgpu;
  if (gpu && !gpu.fallback) {
    const dtype = pickDtype('webgpu');
    if (dtype)
      return {
        ok: true,
        device: 'webgpu',
        dtype,
        reason: `auto: WebGPU adapter${gpu.name ? ` (${gpu.name})` : ''}`,
      };
  }
  const dtype = pickDtype('wasm');
  if (!dtype) return noDtype('wasm');
  const why = !gpu
    ? 'no WebGPU adapter'
    : gpu.fallback
      ? 'the WebGPU adapter is a software fallback, slower than wasm'
      : `no dtype of this model suits the WebGPU adapter${gpu.f16 ? '' : ' (no shader-f16)'}`;
  return { ok: true, device: 'wasm', dtype, reason: `auto: wasm (${why})` };
}
