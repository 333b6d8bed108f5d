/**
 * A second thread for the wasm backend's matmul. The arena's memory is a shared WebAssembly memory
 * (the shared build of the kernels, kernels-shared.wasm); a worker instantiates the same module on
 * it and waits on a control block of sixteen i32 in that memory. A product is split by output
 * rows: the worker computes the second half with `matmulRows`, the calling thread the first, each
 * with its own packing workspace. Every element is summed by the same code in the same order as in
 * the one-thread product, so the result is bit-identical (tested in src/workers/wasm-threads.test.ts).
 *
 * Starting the worker is an effect of the workers layer: the caller passes a `ThreadSpawner`
 * (src/workers/wasm-threads.ts: a Blob worker in a cross-origin-isolated page, worker_threads in
 * Node). Without one the backend runs on one thread.
 */

/** What the worker receives: the compiled shared module, its memory, and where its state lives. */
export interface ThreadInit {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  /** Byte offset of the control block (16 × i32). */
  ctrl: number;
  /** Byte offset of the worker's packing workspace. */
  work: number;
}

/** Starts a worker running `source` with `init`; resolves once it reports `'ready'`. */
export type ThreadSpawner = (source: string, init: ThreadInit) => Promise<{ terminate(): void }>;

/** Control block slots. */
const SEQ = 0; // job number, bumped by the caller to start a job
const ARGS = 1; // 12 slots: a, b, c, batch, m, n, k, transA, transB, accumulate, r0, r1
const DONE = 13; // job number the worker finished
const FAILED = 14; // 1 when the worker's kernel threw
const QUIT = 15;

/**
 * The worker's program (a classic script: `init` arrives as workerData in Node, as the first
 * message in a browser). It blocks in Atomics.wait between jobs.
 */
export const THREAD_SOURCE = `
'use strict';
const start = (init, post) => {
  const x = new WebAssembly.Instance(init.module, { env: { memory: init.memory } }).exports;
  const s = new Int32Array(init.memory.buffer, init.ctrl, 16);
  let seen = Atomics.load(s, ${SEQ});
  post('ready');
  for (;;) {
    Atomics.wait(s, ${SEQ}, seen);
    seen = Atomics.load(s, ${SEQ});
    if (Atomics.load(s, ${QUIT}) === 1) return;
    try {
      x.matmulRows(s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], init.work, s[11], s[12]);
    } catch (e) {
      Atomics.store(s, ${FAILED}, 1);
    }
    Atomics.store(s, ${DONE}, seen);
    Atomics.notify(s, ${DONE});
  }
};
if (typeof require === 'function') {
  const wt = require('node:worker_threads');
  start(wt.workerData, (m) => wt.parentPort.postMessage(m));
} else {
  self.onmessage = (e) => start(e.data, (m) => self.postMessage(m));
}
`;

/** Products below this many multiply-adds stay on one thread (waking the worker costs more). */
export const MIN_SPLIT_MACS = 1 << 18;

type MatmulRows = (
  a: number,
  b: number,
  c: number,
  batch: number,
  m: number,
  n: number,
  k: number,
  transA: number,
  transB: number,
  accumulate: number,
  work: number,
  r0: number,
  r1: number,
) => void;

/** The caller's side of the two-thread matmul. */
export class MatmulThreads {
  private readonly s: Int32Array;
  /** Atomics.wait is not allowed on a page's main thread: there the caller spins. */
  private readonly canBlock = typeof document === 'undefined';
  minSplitMacs = MIN_SPLIT_MACS;

  constructor(
    memory: WebAssembly.Memory,
    ctrl: number,
    private readonly rows: MatmulRows,
    private readonly work: number,
    private readonly worker: { terminate(): void },
  ) {
    this.s = new Int32Array(memory.buffer, ctrl, 16);
  }

  /** Runs the product on two threads when it is large enough; false when the caller should run it alone. */
  matmul(args: number[], m: number, n: number, k: number, batch: number): boolean {
    if (m < 8 || batch * m * n * k < this.minSplitMacs) return false;
    const s = this.s;
    const split = Math.ceil(m / 8) * 4; // about half, on a micro-kernel row boundary
    for (let i = 0; i < 10; i++) s[ARGS + i] = args[i] as number;
    s[ARGS + 10] = split;
    s[ARGS + 11] = m;
    const seq = (Atomics.load(s, SEQ) + 1) | 0;
    Atomics.store(s, SEQ, seq);
    Atomics.notify(s, SEQ);
    const [a, b, c, bt, mm, nn, kk, ta, tb, acc] = args as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    this.rows(a, b, c, bt, mm, nn, kk, ta, tb, acc, this.work, 0, split);
    for (;;) {
      const done = Atomics.load(s, DONE);
      if (done === seq) break;
      if (this.canBlock) Atomics.wait(s, DONE, done, 1000);
    }
    if (Atomics.load(s, FAILED) !== 0) throw new Error('the wasm matmul thread failed');
    return true;
  }

  close(): void {
    Atomics.store(this.s, QUIT, 1);
    Atomics.store(this.s, SEQ, (Atomics.load(this.s, SEQ) + 1) | 0);
    Atomics.notify(this.s, SEQ);
    this.worker.terminate();
  }
}
