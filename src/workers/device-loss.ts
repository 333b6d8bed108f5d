/**
 * Where training goes after the WebGPU device is lost: the best CPU-side backend, shared by the
 * construction-policy and orchestrator training sessions.
 */
import type { BackendChoice } from '../gpu/index.ts';
import type { ChooseBackend } from './train.session.ts';

const CPU_AFTER_LOSS = (message: string): BackendChoice => ({
  backend: 'cpu',
  reason: `the WebGPU device was lost (${message}), no WebAssembly SIMD: continuing on the CPU (TypeScript) backend`,
  adapter: null,
  ctx: null,
});

/**
 * The backend after a device loss: WebAssembly SIMD where the engine has it (as `auto` picks
 * without a GPU), else the TypeScript CPU backend; the reason says which and why.
 */
export async function backendAfterLoss(choose: ChooseBackend, message: string): Promise<BackendChoice> {
  try {
    const c = await choose('wasm', () => undefined);
    const how = c.reason.replace(/^WebAssembly SIMD backend forced/, 'WebAssembly SIMD backend');
    return { ...c, reason: `the WebGPU device was lost (${message}): continuing on the ${how}` };
  } catch {
    return CPU_AFTER_LOSS(message);
  }
}
