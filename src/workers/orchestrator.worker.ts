/// <reference lib="webworker" />
import { chooseBackend, describeAdapter } from '../gpu/index.ts';
import { orchestratorMessages } from '../interop/index.ts';
import { trainedModelsFetch, type DeviceProbe } from '../orchestrator/index.ts';
import { serveRpc } from './rpc/server.ts';
import { orchestratorMethods } from './orchestrator.methods.ts';
import { orchestratorHandlers } from './orchestrator.session.ts';

/**
 * Runs the orchestrator model off the main thread: transformers.js (loaded on the first `load`)
 * downloads and caches the files, onnxruntime-web decodes on WebGPU or wasm, and every token is
 * streamed to the page. What each method does is in orchestrator.session.ts.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;

/** Is there a WebGPU adapter, a software one, with 16-bit floats? The device is released at once. */
async function probe(): Promise<DeviceProbe> {
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
function yieldEach(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

serveRpc(
  scope,
  orchestratorMethods,
  // Folders the Train page exported (`trained-models/…`) are read from Cache Storage.
  orchestratorHandlers({ probe, chatMessages: orchestratorMessages, yieldEach, fetch: trainedModelsFetch() }),
  'orchestrator',
);
