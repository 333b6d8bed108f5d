/**
 * Whether a training session's WebGPU device was lost, and where training goes after that: the
 * best CPU-side backend. Shared by the construction-policy and orchestrator training sessions.
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

/** How long a failed iteration on WebGPU waits for the device's `lost` event (deviceWasLost). */
export const LOSS_GRACE_MS = 2000;

/**
 * Whether the device of a session on `choice` was lost: `seen()` (the session's flag, set by the
 * context's `onLost`, or the context's own), after one macrotask. The `lost` event may settle a
 * while after a read-back failed because of the loss, so after a failed iteration (`failed`) it is
 * waited for up to `graceMs`. Never true off WebGPU.
 */
export async function deviceWasLost(
  choice: BackendChoice,
  seen: () => boolean,
  failed: boolean,
  graceMs = LOSS_GRACE_MS,
): Promise<boolean> {
  if (choice.backend !== 'webgpu') return false;
  const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  await tick(0);
  const until = performance.now() + (failed ? graceMs : 0);
  while (!seen() && performance.now() < until) await tick(10);
  return seen();
}
