/// <reference lib="webworker" />
import { orchestratorMessages } from '../interop/index.ts';
import { trainedModelsFetch } from '../orchestrator/index.ts';
import { serveRpc } from './rpc/server.ts';
import { probeDevice, yieldEach } from './orchestrator.env.ts';
import { orchestratorMethods } from './orchestrator.methods.ts';
import { orchestratorHandlers } from './orchestrator.session.ts';

/**
 * Runs the orchestrator model off the main thread: transformers.js (loaded on the first `load`)
 * downloads and caches the files, onnxruntime-web decodes on WebGPU or wasm, and every token is
 * streamed to the page. What each method does is in orchestrator.session.ts.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;

serveRpc(
  scope,
  orchestratorMethods,
  // Folders the Train page exported (`trained-models/…`) are read from Cache Storage.
  orchestratorHandlers({
    probe: probeDevice,
    chatMessages: orchestratorMessages,
    yieldEach,
    fetch: trainedModelsFetch(),
  }),
  'orchestrator',
);
