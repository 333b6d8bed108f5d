/**
 * WebGPU in Node (tests, benchmarks, the CLI) through the `webgpu` package (Dawn). On machines
 * without a GPU, Dawn's Vulkan backend runs on the SwiftShader driver that Debian's chromium ships;
 * it needs the system Vulkan loader (libvulkan1). Node-only: never imported by the app.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The wasm backend's arena and kernel table (Node code: the two-thread tests and benchmarks). */
export { WasmArena, wasmKernels } from './wasm/kernels.ts';

export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * SwiftShader's Vulkan driver, which Dawn loads, opens libwayland-client and asks it for a display;
 * libwayland prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." to stderr
 * when the variable is unset or not an absolute path (containers, CI, ssh sessions). A private, empty runtime folder
 * for this process keeps that line out of every command's output; no display is found there, which
 * is the truth on such machines. Removed when the process exits.
 */
function ensureRuntimeDir(): void {
  const dir = process.env.XDG_RUNTIME_DIR;
  if (dir !== undefined && dir.startsWith('/')) return;
  const made = mkdtempSync(join(tmpdir(), 'baton-runtime-'));
  process.env.XDG_RUNTIME_DIR = made;
  process.once('exit', () => rmSync(made, { recursive: true, force: true }));
}

let cached: GPU | null = null;

/**
 * The Node GPU object (one per process: Dawn keeps a single instance alive). `flags` are Dawn's
 * (e.g. `disable-dawn-features=timestamp_quantization`); only the first call's are used.
 */
export async function nodeGpu(flags: string[] = []): Promise<GPU> {
  if (cached) return cached;
  process.env.VK_ICD_FILENAMES ??= SWIFTSHADER_ICD;
  ensureRuntimeDir();
  const { create, globals } = await import('webgpu');
  // GPUBufferUsage, GPUMapMode and friends are globals in browsers; the kernels' host code uses them.
  Object.assign(globalThis, globals);
  cached = create(flags);
  return cached;
}

/** Drops the process-wide GPU object so that Node can exit (Dawn keeps the event loop alive while it is referenced). */
export function releaseNodeGpu(): void {
  cached = null;
}
