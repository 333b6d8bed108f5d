/**
 * Keeps the device busy across a sequence of steps: step i + 1 is started (on WebGPU: its inputs
 * set and its work submitted, gpu/model.ts `step`) before step i's result is awaited, so the host
 * prepares the next step while the device runs the last. Results are handed on in order.
 */

/**
 * Runs `start(0)` … `start(n − 1)` with at most `depth` started and not yet handed to `done`
 * (depth 1: each awaited before the next starts), and calls `done` with each result in order.
 * Rejects with the first failure in that order; no step starts once it is seen.
 */
export async function overlapped<T>(
  n: number,
  start: (i: number) => Promise<T>,
  done: (result: T, i: number) => void,
  depth = 2,
): Promise<void> {
  if (!Number.isInteger(depth) || depth < 1) throw new Error(`overlap depth ${depth}: at least 1`);
  const pending: Promise<T>[] = [];
  let next = 0;
  for (let i = 0; i < n; i++) {
    const p = start(i);
    // Observed here so that a failure while an earlier step is awaited is not "unhandled".
    p.catch(() => undefined);
    pending.push(p);
    if (pending.length >= depth) done(await (pending.shift() as Promise<T>), next++);
  }
  while (pending.length > 0) done(await (pending.shift() as Promise<T>), next++);
}
