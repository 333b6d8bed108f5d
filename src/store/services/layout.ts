import {
  layoutDagre,
  layoutKey,
  layoutLayered,
  type LayoutGraph,
  type Positions,
} from '../../design/layout.ts';
import { createLayoutWorkerClient, type LayoutWorkerClient } from '../../workers/layout.client.ts';

/**
 * Graph layout as a service the viewer slice calls. Small graphs get dagre synchronously (≈15 ms
 * at 20 agents). Above `WORKER_THRESHOLD` agents dagre would block the main thread for more than a
 * few frames (≈50 ms at 40 agents, ≈0.25 s at 100, seconds at 1,000), so the caller first gets the
 * instant layered layout and dagre's result arrives later from the worker. Results are cached by
 * graph signature.
 */
export const WORKER_THRESHOLD = 40;

export interface LayoutPlan {
  key: string;
  /** Positions to show now. */
  positions: Positions;
  engine: 'dagre' | 'layered';
  /** Dagre positions from the worker, when `positions` is provisional; null when already final. */
  refined: Promise<Positions> | null;
}

const CACHE_SIZE = 8;
const cache = new Map<string, Positions>();
let client: LayoutWorkerClient | null = null;

/** Tests replace the worker client (Node has no Web Workers); null restores the default. */
export function setLayoutWorkerClient(c: LayoutWorkerClient | null): void {
  client?.dispose();
  client = c;
}

export function clearLayoutCache(): void {
  cache.clear();
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
  if (typeof Worker === 'undefined') return null;
  client = createLayoutWorkerClient();
  return client;
}

export function planLayout(graph: LayoutGraph): LayoutPlan {
  const key = layoutKey(graph);
  const hit = cache.get(key);
  if (hit) return { key, positions: hit, engine: 'dagre', refined: null };
  const worker = graph.nodes.length > WORKER_THRESHOLD ? workerClient() : null;
  if (!worker) {
    // No worker (tests, or a small graph): dagre up to a size where it stays fast, else layered.
    const small = graph.nodes.length <= WORKER_THRESHOLD;
    const positions = small ? layoutDagre(graph) : layoutLayered(graph);
    if (small) remember(key, positions);
    return { key, positions, engine: small ? 'dagre' : 'layered', refined: null };
  }
  const refined = worker.layout(graph, 'dagre').then((positions) => {
    remember(key, positions);
    return positions;
  });
  return { key, positions: layoutLayered(graph), engine: 'layered', refined };
}
