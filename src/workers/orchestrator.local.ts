import { orchestratorMessages } from '../interop/index.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { serveRpc } from './rpc/server.ts';
import { createOrchestratorWorkerClient, type OrchestratorWorkerClient } from './orchestrator.client.ts';
import { orchestratorMethods } from './orchestrator.methods.ts';
import { orchestratorHandlers, type OrchestratorSessionDeps } from './orchestrator.session.ts';

/**
 * For tests in Node: the orchestrator worker's real handlers served on one end of a MessageChannel
 * in this thread and the real client on the other, so tests drive the page's protocol and transport
 * without a Worker. In Node the model runs on onnxruntime-node's CPU (`device: 'cpu'` or `auto`);
 * `cacheDir` keeps downloaded files (a temp dir) and `hubHost` points hub ids at a local server.
 */
export function channelOrchestratorWorker(
  deps: Partial<OrchestratorSessionDeps> = {},
): OrchestratorWorkerClient & { close(): void } {
  const { port1, port2 } = new MessageChannel();
  const stop = serveRpc(
    port2,
    orchestratorMethods,
    orchestratorHandlers({
      probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
      chatMessages: orchestratorMessages,
      yieldEach: () => new Promise((resolve) => setTimeout(resolve, 0)),
      ortPath: null,
      ...deps,
    }),
    'orchestrator',
  );
  const client = createOrchestratorWorkerClient(() => portEndpoint(port1));
  return {
    ...client,
    close() {
      client.dispose();
      stop();
      port2.close();
    },
  };
}
