import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { layoutDagre } from '../view/layout-dagre.ts';
import { LayoutResponseSchema, type LayoutRequest } from './protocol.ts';

/** The worker module on a stand-in for its global scope: what it posts is collected. */
const posted: unknown[] = [];
const scope: { onmessage: ((ev: MessageEvent<unknown>) => void) | null; postMessage(m: unknown): void } = {
  onmessage: null,
  postMessage: (m) => posted.push(m),
};

const send = (data: unknown): unknown => {
  posted.length = 0;
  scope.onmessage!({ data } as MessageEvent<unknown>);
  return LayoutResponseSchema.parse(posted[0]);
};

beforeAll(async () => {
  vi.stubGlobal('self', scope);
  await import('./layout.worker.ts');
});
afterAll(() => vi.unstubAllGlobals());

describe('layout worker', () => {
  it("answers a request with the final layout: dagre's positions", () => {
    const nodes = Array.from({ length: 60 }, (_, i) => `a${i}`);
    const edges = nodes.slice(1).map((to, i) => ({ from: nodes[Math.floor(i / 3)]!, to }));
    const req: LayoutRequest = { type: 'layout', requestId: 7, nodes, edges };
    expect(send(req)).toMatchObject({
      type: 'layout.done',
      requestId: 7,
      positions: layoutDagre({ nodes, edges }),
    });
  });

  it('refuses a malformed request, answering its id', () => {
    expect(send({ type: 'layout', requestId: 3, nodes: 'a,b', edges: [] })).toMatchObject({
      type: 'layout.error',
      requestId: 3,
    });
  });
});
