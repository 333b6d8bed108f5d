import { describe, expect, it } from 'vitest';
import { createLayoutWorkerClient } from './layout.client.ts';
import type { WorkerEndpoint } from './rpc/endpoint.ts';

/** A stand-in Worker that answers each posted message with `respond(message)`, or crashes. */
function fakeWorker(respond: (msg: { id: number; input: unknown }) => unknown): WorkerEndpoint {
  const w: WorkerEndpoint = {
    onmessage: null,
    onmessageerror: null,
    onerror: null,
    postMessage(msg) {
      queueMicrotask(() =>
        w.onmessage?.({ data: respond(msg as { id: number; input: unknown }) } as MessageEvent<unknown>),
      );
    },
    terminate() {},
  };
  return w;
}

describe('layout worker client', () => {
  it('sends the graph and answers with the positions', async () => {
    const sent: unknown[] = [];
    const client = createLayoutWorkerClient(() =>
      fakeWorker((req) => {
        sent.push(req);
        return { kind: 'done', id: req.id, output: { positions: { a: { x: 1, y: 2 } }, ms: 3 } };
      }),
    );
    expect(await client.layout({ nodes: ['a'], edges: [{ from: 'a', to: 'a' }] })).toEqual({
      ok: true,
      value: { a: { x: 1, y: 2 } },
      warnings: [],
    });
    expect(sent).toEqual([
      { kind: 'call', id: 1, method: 'layout', input: { nodes: ['a'], edges: [{ from: 'a', to: 'a' }] } },
    ]);
  });

  it("answers the worker's error, a malformed reply and a crash as problems, never by throwing", async () => {
    const errors = createLayoutWorkerClient(() =>
      fakeWorker((req) => ({
        kind: 'error',
        id: req.id,
        error: { code: 'E_WORKER_FAILED', message: 'no' },
      })),
    );
    expect(await errors.layout({ nodes: ['a'], edges: [] })).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_FAILED', message: 'no' }],
    });
    const junk = createLayoutWorkerClient(() =>
      fakeWorker((req) => ({ kind: 'done', id: req.id, output: { positions: 'x' } })),
    );
    expect(await junk.layout({ nodes: ['a'], edges: [] })).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_BAD_OUTPUT', path: 'layout.layout' }],
    });
    let crashing: WorkerEndpoint | null = null;
    const crashes = createLayoutWorkerClient(() => (crashing = fakeWorker(() => undefined)));
    const answer = crashes.layout({ nodes: ['a'], edges: [] });
    crashing!.onerror!({ message: 'script error' } as ErrorEvent);
    expect(await answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_CRASHED' }] });
  });
});
