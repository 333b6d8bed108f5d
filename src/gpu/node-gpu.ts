/**
 * WebGPU in Node (tests, benchmarks, the CLI) through the `webgpu` package (Dawn). On machines
 * without a GPU, Dawn's Vulkan backend runs on the SwiftShader driver that Debian's chromium ships;
 * it needs the system Vulkan loader (libvulkan1). Node-only: never imported by the app.
 */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

let cached: GPU | null = null;

/** The Node GPU object (one per process: Dawn keeps a single instance alive). */
export async function nodeGpu(): Promise<GPU> {
  if (cached) return cached;
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  const { create, globals } = await import('webgpu');
  // GPUBufferUsage, GPUMapMode and friends are globals in browsers; the kernels' host code uses them.
  Object.assign(globalThis, globals);
  cached = create([]);
  return cached;
}

/** Drops the process-wide GPU object so that Node can exit (Dawn keeps the event loop alive while it is referenced). */
export function releaseNodeGpu(): void {
  cached = null;
}
