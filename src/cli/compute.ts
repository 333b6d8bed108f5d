/**
 * The compute backend for a command's policy network: the CPU (WebAssembly SIMD or TypeScript), or
 * WebGPU through Node's Dawn (`gpu/node-gpu.ts`); a WebGPU choice also lets Node import the kernels'
 * `.wgsl?raw` files.
 */
import { chooseBackend, type BackendChoice, type BackendPreference } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { allowWgslImports } from './wgsl-loader.ts';

export async function computeBackend(pref: BackendPreference): Promise<BackendChoice> {
  const choice =
    pref === 'cpu' || pref === 'wasm'
      ? await chooseBackend(pref)
      : await chooseBackend(pref, { gpu: await nodeGpu() });
  if (choice.backend === 'webgpu') allowWgslImports();
  return choice;
}
