import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import type { Result } from '../../core/result.ts';
import { createRpcClient } from './client.ts';
import { portEndpoint, type WorkerEndpoint } from './endpoint.ts';
import { RpcReplySchema, defineMethods, type RpcReply } from './protocol.ts';
import { serveRpc, type Handlers } from './server.ts';

/** Methods of a test worker: one that counts with progress and honours cancel, and misbehaving ones. */
const methods = defineMethods({
  count: {
    input: z.object({ to: z.number().int().min(0).max(1000) }),
    progress: z.object({ done: z.number().int() }),
    output: z.object({ total: z.number().int() }),
  },
  boom: { input: z.object({ message: z.string() }), progress: z.never(), output: z.null() },
  wrongOutput: { input: z.object({}), progress: z.never(), output: z.object({ n: z.number() }) },
  wrongProgress: { input: z.object({}), progress: z.object({ done: z.number() }), output: z.null() },
});
type Methods = typeof methods;

/** A macrotask: the only kind of pause that lets a `cancel` message in. */
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

interface Counting {
  /** Calls the count handler started. */
  started: number;
  /** Resolves with the last step done when a count handler stops, finished or cancelled. */
  stopped: Promise<{ step: number; aborted: boolean }>;
}

function countingHandlers(): { handlers: Handlers<Methods>; counting: Counting } {
  let stop: (s: { step: number; aborted: boolean }) => void = () => {};
  const counting: Counting = { started: 0, stopped: new Promise((r) => (stop = r)) };
  const handlers: Handlers<Methods> = {
    async count({ to }, { signal, progress }) {
      counting.started++;
      let step = 0;
      try {
        while (step < to) {
          if (signal.aborted) return { total: step };
          step++;
          progress({ done: step });
          await tick();
        }
        return { total: step };
      } finally {
        stop({ step, aborted: signal.aborted });
      }
    },
    boom({ message }) {
      throw new Error(message);
    },
    // Breaks its own schemas on purpose: the server must refuse to send these.
    wrongOutput: () => ({ n: 'seven' }) as unknown as { n: number },
    wrongProgress(_, { progress }) {
      progress({ done: 'half' } as unknown as { done: number });
      return null;
    },
  };
  return { handlers, counting };
}

const open: MessagePort[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

function channel(): { page: MessagePort; worker: MessagePort } {
  const { port1, port2 } = new MessageChannel();
  open.push(port1, port2);
  return { page: port1, worker: port2 };
}

/** A served test worker on one end of a MessageChannel and a client on the other. */
function connect(options: { checkInput?: boolean } = {}) {
  const { page, worker } = channel();
  const { handlers, counting } = countingHandlers();
  serveRpc(worker, methods, handlers, 'test');
  const spawned: WorkerEndpoint[] = [];
  const client = createRpcClient(
    methods,
    () => {
      const ep = portEndpoint(page);
      spawned.push(ep);
      return ep;
    },
    'test',
    options,
  );
  return { client, counting, spawned };
}

/** Sends raw messages to a served test worker and collects its raw replies. */
function rawServer() {
  const { page, worker } = channel();
  serveRpc(worker, methods, countingHandlers().handlers, 'test');
  const replies: unknown[] = [];
  let waiter: (() => void) | null = null;
  page.onmessage = (ev) => {
    replies.push(ev.data);
    waiter?.();
  };
  return {
    async ask(message: unknown): Promise<RpcReply> {
      const before = replies.length;
      const arrived = new Promise<void>((r) => (waiter = r));
      page.postMessage(message);
      while (replies.length === before) await arrived;
      return RpcReplySchema.parse(replies[before]);
    },
  };
}

describe('worker RPC over a MessageChannel', () => {
  it('streams progress in order, then answers with the parsed output', async () => {
    const { client } = connect();
    const seen: number[] = [];
    const answer = await client.call('count', { to: 5 }, { onProgress: (p) => seen.push(p.done) });
    expect(answer).toEqual({ ok: true, value: { total: 5 }, warnings: [] });
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps concurrent calls apart by id', async () => {
    const { client } = connect();
    const a: number[] = [];
    const b: number[] = [];
    const [ra, rb] = await Promise.all([
      client.call('count', { to: 3 }, { onProgress: (p) => a.push(p.done) }),
      client.call('count', { to: 6 }, { onProgress: (p) => b.push(p.done) }),
    ]);
    expect([ra, rb]).toMatchObject([{ value: { total: 3 } }, { value: { total: 6 } }]);
    expect(a).toEqual([1, 2, 3]);
    expect(b).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('cancels: the caller gets E_WORKER_CANCELLED at once and the handler stops early', async () => {
    const { client, counting } = connect();
    const abort = new AbortController();
    const seen: number[] = [];
    const answer = await client.call(
      'count',
      { to: 1000 },
      {
        signal: abort.signal,
        onProgress: (p) => {
          seen.push(p.done);
          if (p.done === 3) abort.abort();
        },
      },
    );
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_CANCELLED', path: 'test.count' }] });
    // Reports the worker sent before the cancel reached it are dropped.
    expect(seen).toEqual([1, 2, 3]);
    const stopped = await counting.stopped;
    expect(stopped.aborted).toBe(true);
    expect(stopped.step).toBeLessThan(10);
    // The worker serves the next call normally.
    expect(await client.call('count', { to: 2 })).toMatchObject({ ok: true, value: { total: 2 } });
  });

  it('does not start a call whose signal is already aborted', async () => {
    const { client, counting, spawned } = connect();
    const answer = await client.call('count', { to: 3 }, { signal: AbortSignal.abort() });
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_CANCELLED' }] });
    expect(counting.started).toBe(0);
    expect(spawned).toHaveLength(0);
  });

  it('answers a throwing handler with E_WORKER_FAILED and its message, and keeps serving', async () => {
    const { client } = connect();
    expect(await client.call('boom', { message: 'no disk' })).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_FAILED', message: 'The worker method failed: no disk', path: 'test.boom' }],
    });
    expect(await client.call('count', { to: 1 })).toMatchObject({ ok: true });
  });

  it('refuses input that breaks the schema before sending it', async () => {
    const { client, counting, spawned } = connect();
    const answer = await client.call('count', { to: -1 });
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_BAD_INPUT', path: 'test.count' }] });
    expect(counting.started).toBe(0);
    expect(spawned).toHaveLength(0);
  });

  it('with checkInput off, leaves the input to the worker, which still refuses what breaks the schema', async () => {
    const { client, counting, spawned } = connect({ checkInput: false });
    const answer = await client.call('count', { to: -1 });
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_BAD_INPUT', path: 'test.count' }] });
    expect(spawned).toHaveLength(1);
    expect(counting.started).toBe(0);
    expect(await client.call('count', { to: 2 })).toMatchObject({ ok: true, value: { total: 2 } });
  });

  it('turns a failing progress callback into E_WORKER_FAILED and cancels the work', async () => {
    const { client, counting } = connect();
    const answer = await client.call(
      'count',
      { to: 1000 },
      {
        onProgress: () => {
          throw new Error('render failed');
        },
      },
    );
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_FAILED' }] });
    expect(answer.ok ? '' : answer.errors[0]?.message).toContain('render failed');
    expect((await counting.stopped).aborted).toBe(true);
  });

  it('the server refuses output and progress that break the method schema', async () => {
    const { client } = connect();
    expect(await client.call('wrongOutput', {})).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_BAD_OUTPUT' }],
    });
    expect(await client.call('wrongProgress', {})).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_BAD_PROGRESS' }],
    });
  });

  it('the server answers malformed requests with clear errors, tied to the call id when it has one', async () => {
    const server = rawServer();
    expect(await server.ask('hello')).toMatchObject({
      kind: 'error',
      id: null,
      error: { code: 'E_WORKER_BAD_MESSAGE' },
    });
    expect(await server.ask({ kind: 'call', id: 4 })).toMatchObject({
      kind: 'error',
      id: 4,
      error: { code: 'E_WORKER_BAD_MESSAGE' },
    });
    expect(await server.ask({ kind: 'call', id: 5, method: 'count', input: { to: 'x' } })).toMatchObject({
      kind: 'error',
      id: 5,
      error: { code: 'E_WORKER_BAD_INPUT', path: 'test.count' },
    });
    expect(await server.ask({ kind: 'call', id: 6, method: 'toString', input: {} })).toMatchObject({
      kind: 'error',
      id: 6,
      error: { code: 'E_WORKER_UNKNOWN_METHOD' },
    });
    expect(await server.ask({ kind: 'call', id: 7, method: 'count', input: { to: 1 } })).toMatchObject({
      kind: 'progress',
      id: 7,
      progress: { done: 1 },
    });
  });
});

/** A worker whose replies the test writes by hand, to check what the client accepts. */
function scriptedWorker(reply: (request: { id: number; kind: string }, send: (m: unknown) => void) => void) {
  const { page, worker } = channel();
  const received: unknown[] = [];
  worker.onmessage = (ev) => {
    received.push(ev.data);
    reply(ev.data as { id: number; kind: string }, (m) => worker.postMessage(m));
  };
  const spawned: WorkerEndpoint[] = [];
  const client = createRpcClient(
    methods,
    () => {
      const ep = portEndpoint(page);
      spawned.push(ep);
      return ep;
    },
    'test',
  );
  return { client, received, spawned };
}

describe('worker RPC client', () => {
  it('refuses a reply that is not a message of the protocol: its own call, or every call when it names none', async () => {
    const tied = scriptedWorker((req, send) => send({ kind: 'finished', id: req.id }));
    expect(await tied.client.call('count', { to: 1 })).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_BAD_MESSAGE', path: 'test.count' }],
    });
    const untied = scriptedWorker((req, send) => {
      if (req.id === 2) send({ kind: 'done', output: 'no id' });
    });
    const answers = await Promise.all([
      untied.client.call('count', { to: 1 }),
      untied.client.call('count', { to: 2 }),
    ]);
    expect(answers).toMatchObject([
      { ok: false, errors: [{ code: 'E_WORKER_BAD_MESSAGE', path: 'test.count' }] },
      { ok: false, errors: [{ code: 'E_WORKER_BAD_MESSAGE', path: 'test.count' }] },
    ]);
  });

  it("refuses output that breaks the method's schema", async () => {
    const { client } = scriptedWorker((req, send) =>
      send({ kind: 'done', id: req.id, output: { total: 'many' } }),
    );
    expect(await client.call('count', { to: 1 })).toMatchObject({
      ok: false,
      errors: [{ code: 'E_WORKER_BAD_OUTPUT' }],
    });
  });

  it('refuses malformed progress and tells the worker to stop', async () => {
    const { client, received } = scriptedWorker((req, send) => {
      if (req.kind === 'call') send({ kind: 'progress', id: req.id, progress: { done: 'some' } });
    });
    const answer = await client.call('count', { to: 9 });
    expect(answer).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_BAD_PROGRESS' }] });
    await tick();
    expect(received).toContainEqual({ kind: 'cancel', id: 1 });
  });

  it('answers every call in flight when the worker crashes, and starts a new worker on the next call', async () => {
    const { client, spawned } = scriptedWorker(() => {});
    const a = client.call('count', { to: 1 });
    const b = client.call('count', { to: 2 });
    spawned[0]!.onerror!({ message: 'out of memory' } as ErrorEvent);
    for (const answer of await Promise.all([a, b]))
      expect(answer).toMatchObject({
        ok: false,
        errors: [{ code: 'E_WORKER_CRASHED', message: 'The worker stopped unexpectedly: out of memory' }],
      });
    void client.call('count', { to: 1 });
    expect(spawned).toHaveLength(2);
  });

  it('answers calls in flight with E_WORKER_STOPPED on dispose', async () => {
    const { client } = scriptedWorker(() => {});
    const pending = client.call('count', { to: 1 });
    client.dispose();
    expect(await pending).toMatchObject({ ok: false, errors: [{ code: 'E_WORKER_STOPPED' }] });
  });

  it('answers E_WORKER_UNAVAILABLE when the worker cannot be started', async () => {
    const client = createRpcClient(methods, () => {
      throw new Error('Worker is not defined');
    });
    expect(await client.call('count', { to: 1 })).toMatchObject({
      ok: false,
      errors: [
        { code: 'E_WORKER_UNAVAILABLE', message: 'The worker could not be started: Worker is not defined' },
      ],
    });
  });

  it('types calls by the method table', () => {
    const client = createRpcClient(methods, () => {
      throw new Error('never started');
    });
    // @ts-expect-error: no such method
    void client.call('nope', {});
    // @ts-expect-error: `to` is a number
    void client.call('count', { to: 'x' });
    expectTypeOf(client.call)
      .parameter(0)
      .toEqualTypeOf<'count' | 'boom' | 'wrongOutput' | 'wrongProgress'>();
    expectTypeOf(client.call<'count'>).returns.resolves.toEqualTypeOf<Result<{ total: number }>>();
  });
});
