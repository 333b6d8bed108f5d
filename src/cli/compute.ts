/**
 * The compute backend for a command's policy network: the CPU (WebAssembly SIMD or TypeScript), or
 * WebGPU through Node's Dawn (`gpu/node-gpu.ts`); a WebGPU choice also lets Node import the kernels'
 * `.wgsl?raw` files.
 */
import {
  chooseBackend,
  type BackendChoice,
  type BackendPreference,
  type ProbeWorkload,
} from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { allowWgslImports } from './wgsl-loader.ts';

/** With `workload`, `auto` times it on a hardware adapter in place of the generic probe step. */
export async function computeBackend(
  pref: BackendPreference,
  workload?: ProbeWorkload,
): Promise<BackendChoice> {
  if (pref === 'cpu' || pref === 'wasm') return chooseBackend(pref);
  // The probe compiles WebGPU models (the kernels' `.wgsl?raw` imports) before the choice is made.
  allowWgslImports();
  return chooseBackend(pref, { gpu: await nodeGpu(), ...(workload ? { workload } : {}) });
}
