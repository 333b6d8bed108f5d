import { layoutKey, layoutLayered, type LayoutGraph, type Positions } from '../../view/layout.ts';
import { createLayoutWorkerClient, workersAvailable, type LayoutWorkerClient } from '../../workers/index.ts';

/**
 * Graph layout as a service the viewer slice calls. Every graph gets `layoutLayered`
 * (src/view/layout.ts), the final layout; only where it is computed differs:
 * - up to `WORKER_THRESHOLD` agents, here and now, so a small graph never shows a placeholder: at 40
 *   agents ≈1.5 ms once warm and up to about a frame on a fresh page (≈6–20 ms in Chromium);
 * - above that, in the layout worker: on a fresh page it would block the main thread for more than a
 *   frame (≈10–40 ms at 100–300 agents, ≈50–90 ms at 1,000, before the JIT has warmed up). The
 *   caller shows a placeholder until the answer arrives and then the graph, once: nothing moves
 *   afterwards.
 * Should the worker fail (or not exist, as in Node), the same layout is computed here instead.
 * Results are cached by graph signature, and one graph is never laid out twice at once.
 */
export const WORKER_THRESHOLD = 40;

/** Where a layout was computed: here, in the worker, or earlier (the cache). */
export type LayoutSource = 'main' | 'worker' | 'cache';

export interface LaidOut {
  positions: Positions;
  source: LayoutSource;
  /** Why the worker's answer was replaced by a layout computed here; null when it was not. */
  error: string | null;
}

export interface LayoutPlan {
  key: string;
  /** The layout, when it is available at once (small graph, cache, no worker); else null. */
  ready: LaidOut | null;
  /** The worker's answer when `ready` is null; it never rejects (a failed worker falls back here). */
  later: Promise<LaidOut> | null;
}

const CACHE_SIZE = 8;
const cache = new Map<string, Positions>();
const inFlight = new Map<string, Promise<LaidOut>>();
let client: LayoutWorkerClient | null = null;

/** Tests replace the worker client (Node has no Web Workers); null restores the default. */
export function setLayoutWorkerClient(c: LayoutWorkerClient | null): void {
  client?.dispose();
  client = c;
}

export function clearLayoutCache(): void {
  cache.clear();
  inFlight.clear();
}

function remember(key: string, positions: Positions): void {
  cache.delete(key);
  cache.set(key, positions);
  while (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest === undefined) break;
    cache.delete(oldest);
  }
}

function workerClient(): LayoutWorkerClient | null {
  if (client) return client;
  if (!workersAvailable()) return null;
  client = createLayoutWorkerClient();
  return client;
}

export function planLayout(graph: LayoutGraph): LayoutPlan {
  const key = layoutKey(graph);
  const hit = cache.get(key);
  if (hit) {
    // Most recently used: a trace flipped back to often stays cached.
    remember(key, hit);
    return { key, ready: { positions: hit, source: 'cache', error: null }, later: null };
  }
  const running = inFlight.get(key);
  if (running) return { key, ready: null, later: running };
  const worker = graph.nodes.length > WORKER_THRESHOLD ? workerClient() : null;
  if (!worker) {
    const positions = layoutLayered(graph);
    remember(key, positions);
    return { key, ready: { positions, source: 'main', error: null }, later: null };
  }
  // The worker failed (it could not start, crashed, or sent something malformed): the same layout,
  // computed here. One long task, but the graph is shown.
  const here = (error: string): LaidOut => ({ positions: layoutLayered(graph), source: 'main', error });
  const later = worker.layout(graph).then(
    (answer): LaidOut =>
      answer.ok
        ? { positions: answer.value, source: 'worker', error: null }
        : here(answer.errors.map((p) => p.message).join('; ')),
    // The client answers failures as values; a rejection would only come from a broken client, and
    // must not leave this graph in flight for ever.
    (e: unknown): LaidOut => here(e instanceof Error ? e.message : String(e)),
  );
  const settled: Promise<LaidOut> = later.then((out) => {
    remember(key, out.positions);
    if (inFlight.get(key) === settled) inFlight.delete(key);
    return out;
  });
  inFlight.set(key, settled);
  return { key, ready: null, later: settled };
}
