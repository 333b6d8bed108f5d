/**
 * A second thread for the wasm backend's matmul. The arena's memory is a shared WebAssembly memory
 * (the shared build of the kernels, kernels-shared.wasm); a worker instantiates the same module on
 * it and waits on a control block of 32 i32 in that memory. A product is split into chunks of
 * output rows that both threads claim (`MatmulThreads`), each running `matmulRows` with its own
 * packing workspace. Every element is summed by the same code in the same order as in
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
  /** Byte offset of the control block (CTRL_SLOTS × i32). */
  ctrl: number;
  /** Byte offset of the worker's packing workspace. */
  work: number;
}

/** Starts a worker running `source` with `init`; resolves once it reports `'ready'`. */
export type ThreadSpawner = (source: string, init: ThreadInit) => Promise<{ terminate(): void }>;

/** Control block slots (32 × i32). */
const SEQ = 0; // job number, bumped by the caller to wake the worker
const ARGS = 1; // 10 slots: a, b, c, batch, m, n, k, transA, transB, accumulate
const PER = 11; // output rows per chunk
const NEXT = 12; // the job's claim word: generation << 16 | chunks << 8 | next chunk
const FINISHED = 13; // chunks finished, by either thread
const FAILED = 14; // 1 when the worker's kernel threw
const QUIT = 15;
const WORKER_CHUNKS = 16; // chunks the worker ran, all jobs together (a diagnostic)
/** Slots of the control block. */
export const CTRL_SLOTS = 32;

/**
 * The worker's program (a classic script: `init` arrives as workerData in Node, as the first
 * message in a browser). It blocks in Atomics.wait between jobs; woken, it claims chunks of output
 * rows until none is left, the same loop as the caller's (\`claim\` below).
 */
export const THREAD_SOURCE = `
'use strict';
const start = (init, post) => {
  const x = new WebAssembly.Instance(init.module, { env: { memory: init.memory } }).exports;
  const s = new Int32Array(init.memory.buffer, init.ctrl, ${CTRL_SLOTS});
  let seen = Atomics.load(s, ${SEQ});
  post('ready');
  for (;;) {
    Atomics.wait(s, ${SEQ}, seen);
    seen = Atomics.load(s, ${SEQ});
    if (Atomics.load(s, ${QUIT}) === 1) return;
    for (;;) {
      const v = Atomics.load(s, ${NEXT});
      const idx = v & 255;
      if (idx >= ((v >> 8) & 255)) break;
      if (Atomics.compareExchange(s, ${NEXT}, v, v + 1) !== v) continue;
      const per = s[${PER}];
      const m = s[5];
      try {
        x.matmulRows(s[1], s[2], s[3], s[4], m, s[6], s[7], s[8], s[9], s[10], init.work, idx * per, Math.min(m, (idx + 1) * per));
      } catch (e) {
        Atomics.store(s, ${FAILED}, 1);
      }
      Atomics.add(s, ${WORKER_CHUNKS}, 1);
      Atomics.add(s, ${FINISHED}, 1);
      Atomics.notify(s, ${FINISHED});
    }
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

/**
 * The caller's side of the two-thread matmul. A product is cut into chunks of output rows (2 to 8,
 * whole 4-row micro-kernel blocks) that both threads claim one at a time from a shared counter, so
 * the caller never waits for a worker that the scheduler has not run: if the worker does not wake
 * in time, the caller runs every chunk itself and returns (on a loaded machine a fixed half for
 * each thread made the product as slow as the later of the two threads' time slices).
 */
export class MatmulThreads {
  private readonly s: Int32Array;
  /** Atomics.wait is not allowed on a page's main thread: there the caller spins. */
  private readonly canBlock = typeof document === 'undefined';
  minSplitMacs = MIN_SPLIT_MACS;
  private gen = 0;

  constructor(
    memory: WebAssembly.Memory,
    ctrl: number,
    private readonly rows: MatmulRows,
    private readonly work: number,
    private readonly worker: { terminate(): void },
  ) {
    this.s = new Int32Array(memory.buffer, ctrl, CTRL_SLOTS);
  }

  /** Chunks the worker has run so far (all products together). */
  get workerChunks(): number {
    return Atomics.load(this.s, WORKER_CHUNKS);
  }

  /** Runs the product on two threads when it is large enough; false when the caller should run it alone. */
  matmul(args: number[], m: number, n: number, k: number, batch: number): boolean {
    if (m < 8 || batch * m * n * k < this.minSplitMacs) return false;
    const s = this.s;
    const chunks = Math.min(8, Math.max(2, Math.floor(m / 64)));
    const per = Math.ceil(m / chunks / 4) * 4;
    const count = Math.ceil(m / per);
    for (let i = 0; i < 10; i++) s[ARGS + i] = args[i] as number;
    s[PER] = per;
    Atomics.store(s, FINISHED, 0);
    this.gen = (this.gen + 1) & 0x7fff;
    // Opening the claim word publishes the arguments above to whoever claims a chunk of this job.
    Atomics.store(s, NEXT, (this.gen << 16) | (count << 8));
    Atomics.store(s, SEQ, (Atomics.load(s, SEQ) + 1) | 0);
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
    for (;;) {
      const v = Atomics.load(s, NEXT);
      const idx = v & 255;
      if (idx >= ((v >> 8) & 255)) break;
      if (Atomics.compareExchange(s, NEXT, v, v + 1) !== v) continue;
      this.rows(a, b, c, bt, mm, nn, kk, ta, tb, acc, this.work, idx * per, Math.min(m, (idx + 1) * per));
      Atomics.add(s, FINISHED, 1);
    }
    // Only chunks the worker claimed and has not finished remain.
    for (;;) {
      const done = Atomics.load(s, FINISHED);
      if (done >= count) break;
      if (this.canBlock) Atomics.wait(s, FINISHED, done, 1000);
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
