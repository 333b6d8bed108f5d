import { describe, expect, it } from 'vitest';
import { createLayoutWorkerClient, type WorkerLike } from './layout.client.ts';
import { LayoutRequestSchema } from './protocol.ts';

function fakeWorker(respond: (req: unknown) => unknown): WorkerLike {
  const w: WorkerLike = {
    onmessage: null,
    onerror: null,
    postMessage(msg) {
      queueMicrotask(() => w.onmessage?.({ data: respond(msg) } as MessageEvent<unknown>));
    },
    terminate() {},
  };
  return w;
}

describe('layout worker client', () => {
  it('sends a valid request and resolves with the positions', async () => {
    const client = createLayoutWorkerClient(() =>
      fakeWorker((req) => {
        const r = LayoutRequestSchema.parse(req);
        return { type: 'layout.done', requestId: r.requestId, positions: { a: { x: 1, y: 2 } }, ms: 3 };
      }),
    );
    await expect(client.layout({ nodes: ['a'], edges: [] })).resolves.toEqual({ a: { x: 1, y: 2 } });
  });

  it('rejects on a worker error and on a malformed reply', async () => {
    const errors = createLayoutWorkerClient(() =>
      fakeWorker((req) => ({
        type: 'layout.error',
        requestId: (req as { requestId: number }).requestId,
        message: 'no',
      })),
    );
    await expect(errors.layout({ nodes: ['a'], edges: [] })).rejects.toThrow('no');
    const junk = createLayoutWorkerClient(() => fakeWorker(() => ({ type: 'layout.done', positions: 'x' })));
    await expect(junk.layout({ nodes: ['a'], edges: [] })).rejects.toThrow(/malformed/);
  });
});
