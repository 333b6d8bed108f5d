/**
 * The two ends of a worker conversation. In the browser the page holds a `Worker` and the worker
 * holds its global scope; in unit tests a `MessageChannel`'s two ports stand in for them, so tests
 * run the same client and server code over the same structured-clone transport.
 */

/** Something messages go to and come from: a Worker, a worker's global scope, a MessagePort. */
export interface MessageEndpoint {
  postMessage(message: unknown): void;
  onmessage: ((ev: MessageEvent<unknown>) => void) | null;
  /** A message arrived but could not be deserialised. */
  onmessageerror: ((ev: MessageEvent<unknown>) => void) | null;
}

/** A worker as the page sees it: an endpoint that can crash and can be stopped. */
export interface WorkerEndpoint extends MessageEndpoint {
  /** An uncaught error in the worker, or a script that failed to load. */
  onerror?: ((ev: ErrorEvent) => void) | null;
  terminate(): void;
}

/** Whether this environment can start Web Workers (a browser can; Node cannot). */
export function workersAvailable(): boolean {
  return typeof Worker !== 'undefined';
}

/** A MessagePort as a worker: `terminate` closes the channel. */
export function portEndpoint(port: MessagePort): WorkerEndpoint {
  return {
    postMessage: (message) => port.postMessage(message),
    get onmessage() {
      return port.onmessage;
    },
    set onmessage(handler) {
      port.onmessage = handler;
    },
    get onmessageerror() {
      return port.onmessageerror;
    },
    set onmessageerror(handler) {
      port.onmessageerror = handler;
    },
    onerror: null,
    terminate: () => port.close(),
  };
}
