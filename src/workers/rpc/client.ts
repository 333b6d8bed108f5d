import { fail, ok, type Result } from '../../core/result.ts';
import type { WorkerEndpoint } from './endpoint.ts';
import {
  RpcReplySchema,
  idOf,
  issuesText,
  rpcProblem,
  thrownText,
  type InputOf,
  type MethodTable,
  type OutputOf,
  type ProgressOf,
  type RpcErrorCode,
} from './protocol.ts';

export interface CallOptions<P> {
  /** Aborting it cancels the call: the answer is `E_WORKER_CANCELLED` at once, the worker is told. */
  signal?: AbortSignal;
  /** Each progress report, parsed, in the order the worker sent them. */
  onProgress?: (report: P) => void;
}

/** The page's side of a worker: typed calls whose answers are values, never exceptions. */
export interface RpcClient<T extends MethodTable> {
  /**
   * Calls `method` with `input`. The promise never rejects: it resolves with the parsed output, or
   * with one problem (`E_WORKER_*`, see `RPC_CODES`; sentences in src/core/errors.ts) whose `path` is `<worker>.<method>`.
   */
  call<K extends keyof T & string>(
    method: K,
    input: InputOf<T[K]>,
    options?: CallOptions<ProgressOf<T[K]>>,
  ): Promise<Result<OutputOf<T[K]>>>;
  /** Stops the worker; calls in flight answer `E_WORKER_STOPPED`. A later call starts a new worker. */
  dispose(): void;
}

interface Pending {
  method: string;
  settle(result: Result<unknown>): void;
  progress(raw: unknown): void;
}

/** How a client treats its own calls. */
export interface RpcClientOptions {
  /**
   * Parse each call's input here before sending it (default true). A caller whose input is built
   * by the program itself, many times a second (the simulator pool), may leave it to the worker,
   * which parses every message it receives either way.
   */
  checkInput?: boolean;
}

/**
 * A client for a worker serving `methods` (see `serveRpc`). The worker is started by `spawn` on the
 * first call and kept; when it crashes, the calls in flight answer `E_WORKER_CRASHED` and the next
 * call starts a fresh one.
 */
export function createRpcClient<T extends MethodTable>(
  methods: T,
  spawn: () => WorkerEndpoint,
  name = 'worker',
  options: RpcClientOptions = {},
): RpcClient<T> {
  const checkInput = options.checkInput ?? true;
  let worker: WorkerEndpoint | null = null;
  let nextId = 1;
  const pending = new Map<number, Pending>();

  const failAll = (code: RpcErrorCode, detail?: string): void => {
    const calls = [...pending.values()];
    pending.clear();
    for (const p of calls) p.settle(fail(rpcProblem(code, `${name}.${p.method}`, detail)));
  };

  const stop = (w: WorkerEndpoint): void => {
    w.onmessage = null;
    w.onmessageerror = null;
    w.onerror = null;
    w.terminate();
    if (worker === w) worker = null;
  };

  const receive = (data: unknown): void => {
    const parsed = RpcReplySchema.safeParse(data);
    if (!parsed.success) {
      const id = idOf(data);
      const detail = `the worker sent ${issuesText(parsed.error)}`;
      // A reply without a usable id cannot be tied to a call: every call is in doubt. One with the id
      // of a call already settled (cancelled) is dropped like any late answer.
      const entry = id === null ? undefined : pending.get(id);
      if (id === null) failAll('E_WORKER_BAD_MESSAGE', detail);
      else entry?.settle(fail(rpcProblem('E_WORKER_BAD_MESSAGE', `${name}.${entry.method}`, detail)));
      return;
    }
    const msg = parsed.data;
    if (msg.kind === 'error' && msg.id === null) {
      const calls = [...pending.values()];
      pending.clear();
      for (const p of calls) p.settle(fail({ ...msg.error, path: `${name}.${p.method}` }));
      return;
    }
    const entry = msg.id === null ? undefined : pending.get(msg.id);
    // Answers to cancelled calls arrive late; they are dropped.
    if (!entry) return;
    if (msg.kind === 'progress') entry.progress(msg.progress);
    else if (msg.kind === 'error') entry.settle(fail(msg.error));
    else {
      const output = methods[entry.method]!.output.safeParse(msg.output);
      entry.settle(
        output.success
          ? ok(output.data)
          : fail(rpcProblem('E_WORKER_BAD_OUTPUT', `${name}.${entry.method}`, issuesText(output.error))),
      );
    }
  };

  const ensure = (): WorkerEndpoint => {
    if (worker) return worker;
    const w = spawn();
    w.onmessage = (ev) => receive(ev.data);
    w.onmessageerror = () => failAll('E_WORKER_BAD_MESSAGE', 'a reply could not be deserialised');
    w.onerror = (ev) => {
      failAll('E_WORKER_CRASHED', ev.message || 'unknown error');
      stop(w);
    };
    worker = w;
    return w;
  };

  return {
    call<K extends keyof T & string>(
      method: K,
      input: InputOf<T[K]>,
      options: CallOptions<ProgressOf<T[K]>> = {},
    ): Promise<Result<OutputOf<T[K]>>> {
      const path = `${name}.${method}`;
      const { signal, onProgress } = options;
      if (signal?.aborted) return Promise.resolve(fail(rpcProblem('E_WORKER_CANCELLED', path)));
      const spec = Object.hasOwn(methods, method) ? methods[method] : undefined;
      if (!spec) return Promise.resolve(fail(rpcProblem('E_WORKER_UNKNOWN_METHOD', path, method)));
      const parsed = checkInput ? spec.input.safeParse(input) : { success: true as const, data: input };
      if (!parsed.success)
        return Promise.resolve(fail(rpcProblem('E_WORKER_BAD_INPUT', path, issuesText(parsed.error))));
      let w: WorkerEndpoint;
      try {
        w = ensure();
      } catch (e) {
        return Promise.resolve(fail(rpcProblem('E_WORKER_UNAVAILABLE', path, thrownText(e))));
      }
      const id = nextId++;
      return new Promise((resolve) => {
        let settled = false;
        const settle = (result: Result<unknown>): void => {
          if (settled) return;
          settled = true;
          if (pending.get(id) === entry) pending.delete(id);
          signal?.removeEventListener('abort', onAbort);
          resolve(result as Result<OutputOf<T[K]>>);
        };
        // Tells a worker still running the call to stop; the answer here does not wait for it.
        const cancelThere = (): void => {
          if (worker !== w) return;
          try {
            w.postMessage({ kind: 'cancel', id });
          } catch {
            // The worker is gone; there is nothing left to cancel.
          }
        };
        const onAbort = (): void => {
          if (settled) return;
          cancelThere();
          settle(fail(rpcProblem('E_WORKER_CANCELLED', path)));
        };
        const entry: Pending = {
          method,
          settle,
          progress(raw) {
            const report = spec.progress.safeParse(raw);
            if (!report.success) {
              cancelThere();
              settle(fail(rpcProblem('E_WORKER_BAD_PROGRESS', path, issuesText(report.error))));
              return;
            }
            try {
              onProgress?.(report.data as ProgressOf<T[K]>);
            } catch (e) {
              cancelThere();
              settle(
                fail(rpcProblem('E_WORKER_FAILED', path, `the progress callback threw: ${thrownText(e)}`)),
              );
            }
          },
        };
        pending.set(id, entry);
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          w.postMessage({ kind: 'call', id, method, input: parsed.data });
        } catch (e) {
          settle(fail(rpcProblem('E_WORKER_BAD_INPUT', path, `not cloneable: ${thrownText(e)}`)));
        }
      });
    },
    dispose() {
      failAll('E_WORKER_STOPPED');
      if (worker) stop(worker);
    },
  };
}
