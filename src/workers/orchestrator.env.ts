/// <reference lib="webworker" />
import { chooseBackend, describeAdapter } from '../gpu/index.ts';
import type { DeviceProbe } from '../orchestrator/index.ts';

/**
 * What an orchestrator model needs from the worker it runs in, shared by the orchestrator worker
 * (the Orchestrate page) and the evaluation worker (in-tab orchestrator methods on the Evaluate
 * page), so both load and decode a model the same way.
 */

/** Is there a WebGPU adapter, a software one, with 16-bit floats? The device is released at once. */
export async function probeDevice(): Promise<DeviceProbe> {
  try {
    const choice = await chooseBackend('auto');
    choice.ctx?.dispose();
    if (!choice.adapter) return { runtime: 'browser', webgpu: null };
    return {
      runtime: 'browser',
      webgpu: {
        fallback: choice.adapter.software,
        f16: choice.adapter.features.includes('shader-f16'),
        name: describeAdapter(choice.adapter),
      },
    };
  } catch {
    return { runtime: 'browser', webgpu: null };
  }
}

/** A macrotask: lets `interrupt` and `cancel` messages in between two forward passes. */
export function yieldEach(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}
