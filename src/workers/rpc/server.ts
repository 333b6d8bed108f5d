import type { MessageEndpoint } from './endpoint.ts';
import {
  RpcRequestSchema,
  idOf,
  issuesText,
  rpcProblem,
  thrownText,
  type MethodTable,
  type OutputIn,
  type ParsedInputOf,
  type ProgressIn,
  type RpcErrorCode,
  type RpcReply,
} from './protocol.ts';

/** What a method's handler gets besides its input. */
export interface HandlerContext<P> {
  /**
   * Aborted when the caller cancels. A handler that works in steps checks it between them; to let a
   * `cancel` message arrive at all, a long handler must yield to the event loop now and then (an
   * `await` of a macrotask or of real I/O such as a GPU read-back; a resolved promise is not enough).
   */
  signal: AbortSignal;
  /** Sends one progress report to the caller; ignored once the call is cancelled. */
  progress(report: P): void;
}

export type Handler<M extends MethodTable[string]> = (
  input: ParsedInputOf<M>,
  ctx: HandlerContext<ProgressIn<M>>,
) => OutputIn<M> | Promise<OutputIn<M>>;

export type Handlers<T extends MethodTable> = { [K in keyof T]: Handler<T[K]> };

/**
 * Serves `methods` on `endpoint` (in a worker: its global scope). Every request is parsed; a
 * malformed one, an unknown method, input, progress or output that breaks the method's schema, and a
 * handler that throws all become an `error` reply: nothing thrown here crosses to the page. Returns
 * a function that stops serving and cancels the calls in flight.
 */
export function serveRpc<T extends MethodTable>(
  endpoint: MessageEndpoint,
  methods: T,
  handlers: Handlers<T>,
  name = 'worker',
): () => void {
  const running = new Map<number, AbortController>();

  const send = (reply: RpcReply): boolean => {
    try {
      endpoint.postMessage(reply);
      return true;
    } catch {
      // Not cloneable (a function, a DOM node...): the caller still needs an answer.
      return false;
    }
  };
  const sendError = (id: number | null, code: RpcErrorCode, path: string, detail?: string): void => {
    send({ kind: 'error', id, error: rpcProblem(code, path, detail) });
  };

  const call = async (id: number, method: string, rawInput: unknown): Promise<void> => {
    const path = `${name}.${method}`;
    if (running.has(id)) {
      sendError(id, 'E_WORKER_BAD_MESSAGE', path, `call id ${id} is already in use`);
      return;
    }
    if (!Object.hasOwn(methods, method) || !Object.hasOwn(handlers, method)) {
      sendError(id, 'E_WORKER_UNKNOWN_METHOD', path, method);
      return;
    }
    const spec = methods[method]!;
    const handler = handlers[method] as Handler<typeof spec>;
    const input = spec.input.safeParse(rawInput);
    if (!input.success) {
      sendError(id, 'E_WORKER_BAD_INPUT', path, issuesText(input.error));
      return;
    }
    const controller = new AbortController();
    running.set(id, controller);
    // Once a call is settled (answered, failed or cancelled) nothing more is sent for it.
    const settle = (): boolean => running.get(id) === controller && running.delete(id);
    const ctx: HandlerContext<unknown> = {
      signal: controller.signal,
      progress(report) {
        if (controller.signal.aborted || running.get(id) !== controller) return;
        const parsed = spec.progress.safeParse(report);
        if (!parsed.success) {
          settle();
          controller.abort();
          sendError(id, 'E_WORKER_BAD_PROGRESS', path, issuesText(parsed.error));
          return;
        }
        if (!send({ kind: 'progress', id, progress: parsed.data })) {
          settle();
          controller.abort();
          sendError(id, 'E_WORKER_BAD_PROGRESS', path, 'the report cannot be sent (not cloneable)');
        }
      },
    };
    let output: unknown;
    try {
      output = await handler(input.data, ctx);
    } catch (e) {
      if (settle()) sendError(id, 'E_WORKER_FAILED', path, thrownText(e));
      return;
    }
    if (!settle() || controller.signal.aborted) return;
    const parsed = spec.output.safeParse(output);
    if (!parsed.success) {
      sendError(id, 'E_WORKER_BAD_OUTPUT', path, issuesText(parsed.error));
      return;
    }
    if (!send({ kind: 'done', id, output: parsed.data }))
      sendError(id, 'E_WORKER_BAD_OUTPUT', path, 'the answer cannot be sent (not cloneable)');
  };

  endpoint.onmessage = (ev) => {
    const parsed = RpcRequestSchema.safeParse(ev.data);
    if (!parsed.success) {
      sendError(idOf(ev.data), 'E_WORKER_BAD_MESSAGE', name, issuesText(parsed.error));
      return;
    }
    const msg = parsed.data;
    if (msg.kind === 'cancel') {
      const controller = running.get(msg.id);
      running.delete(msg.id);
      controller?.abort();
      return;
    }
    void call(msg.id, msg.method, msg.input);
  };
  endpoint.onmessageerror = () => {
    sendError(null, 'E_WORKER_BAD_MESSAGE', name, 'a request could not be deserialised');
  };

  return () => {
    endpoint.onmessage = null;
    endpoint.onmessageerror = null;
    for (const controller of running.values()) controller.abort();
    running.clear();
  };
}
