/**
 * A virtual clock for generating example traces: `sleep` registers a wake-up instead of a real
 * timer, and `drive` advances time from one wake-up to the next once everything else has settled.
 * A simulated run with modelled latencies then gets the timeline it would have in real time (parallel
 * agents overlap, each call lasts its modelled latency), at once and identically on every run, so
 * the generated files can be committed and compared byte for byte.
 */

interface Timer {
  at: number;
  seq: number;
  wake: (elapsed: boolean) => void;
}

export interface VirtualClock {
  /** Milliseconds of virtual time since the clock was made. */
  now: () => number;
  /** Resolves true after `ms` of virtual time, false as soon as `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<boolean>;
  /** Runs `work`, advancing virtual time whenever nothing but timers is left to do. */
  drive: <T>(work: () => Promise<T>) => Promise<T>;
}

/** One macrotask turn: every promise reaction queued before it has run by then. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function virtualClock(): VirtualClock {
  let time = 0;
  let seq = 0;
  const timers: Timer[] = [];

  const sleep = (ms: number, signal: AbortSignal): Promise<boolean> =>
    new Promise((resolve) => {
      if (signal.aborted) return resolve(false);
      const timer: Timer = { at: time + Math.max(0, ms), seq: seq++, wake: resolve };
      timers.push(timer);
      signal.addEventListener(
        'abort',
        () => {
          const i = timers.indexOf(timer);
          if (i >= 0) timers.splice(i, 1);
          resolve(false);
        },
        { once: true },
      );
    });

  const drive = async <T>(work: () => Promise<T>): Promise<T> => {
    let done = false;
    const result = work().finally(() => {
      done = true;
    });
    // Wake the earliest timer (ties in the order they were set) once the run is idle.
    for (;;) {
      await settle();
      if (done) break;
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers.shift();
      if (!next) break;
      time = Math.max(time, next.at);
      next.wake(true);
    }
    return result;
  };

  return { now: () => time, sleep, drive };
}
