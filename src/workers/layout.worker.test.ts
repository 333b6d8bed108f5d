import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { layoutDagre } from '../view/layout-dagre.ts';
import { createLayoutWorkerClient } from './layout.client.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { RpcReplySchema } from './rpc/protocol.ts';

/**
 * The worker module itself, served on one end of a MessageChannel (its `self`), called by the real
 * client on the other: the structured-clone transport the browser uses, without a browser.
 */
const { port1: page, port2: workerScope } = new MessageChannel();

beforeAll(async () => {
  vi.stubGlobal('self', workerScope);
  await import('./layout.worker.ts');
});
afterAll(() => {
  page.close();
  vi.unstubAllGlobals();
});

describe('layout worker', () => {
  it("answers a graph with the final layout: dagre's positions", async () => {
    const nodes = Array.from({ length: 60 }, (_, i) => `a${i}`);
    const edges = nodes.slice(1).map((to, i) => ({ from: nodes[Math.floor(i / 3)]!, to }));
    const client = createLayoutWorkerClient(() => portEndpoint(page));
    expect(await client.layout({ nodes, edges })).toEqual({
      ok: true,
      value: layoutDagre({ nodes, edges }),
      warnings: [],
    });
  });

  it('refuses a malformed request, answering its id', async () => {
    const reply = new Promise<unknown>((resolve) => (page.onmessage = (ev) => resolve(ev.data)));
    page.postMessage({ kind: 'call', id: 3, method: 'layout', input: { nodes: 'a,b', edges: [] } });
    expect(RpcReplySchema.parse(await reply)).toMatchObject({
      kind: 'error',
      id: 3,
      error: { code: 'E_WORKER_BAD_INPUT', path: 'layout.layout' },
    });
  });
});
