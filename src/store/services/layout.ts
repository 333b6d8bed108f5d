import {
  fitsDagre,
  layoutDagre,
  layoutKey,
  layoutLayeredFits,
  type LayoutGraph,
  type Positions,
} from '../../design/layout.ts';
import { createLayoutWorkerClient, type LayoutWorkerClient } from '../../workers/layout.client.ts';

/**
 * Graph layout as a service the viewer slice calls. Small graphs get dagre synchronously (≈7 ms at
 * 20 agents, ≈11 ms at 40). Above `WORKER_THRESHOLD` agents dagre would block the main thread for
 * more than a frame (≈30 ms at 100 agents, ≈0.5 s at 1,000), so the caller gets the `layered`
 * layout at once — the same positions computed without dagre (src/design/layout.ts) — and dagre's
 * answer arrives later from the worker and confirms them: nothing moves. Graphs too big for the
 * layered layout (`fitsDagre`) get the stacked fallback and no worker job. Results are cached by
 * graph signature.
 */
export const WORKER_THRESHOLD = 40;

export interface LayoutPlan {
  key: string;
  /** Positions to show now. */
  positions: Positions;
  engine: 'dagre' | 'layered';
  /**
   * Dagre's positions from the worker when `positions` were computed without it (they agree, and
   * then this resolves to the very `positions` object); null when `positions` are already final.
   */
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

/** True when both layouts place every node at the same point. */
function samePositions(a: Positions, b: Positions): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k]!.x === b[k]?.x && a[k]!.y === b[k]?.y);
}

export function planLayout(graph: LayoutGraph): LayoutPlan {
  const key = layoutKey(graph);
  const hit = cache.get(key);
  if (hit) return { key, positions: hit, engine: 'dagre', refined: null };
  if (graph.nodes.length <= WORKER_THRESHOLD && fitsDagre(graph)) {
    const positions = layoutDagre(graph);
    remember(key, positions);
    return { key, positions, engine: 'dagre', refined: null };
  }
  const { positions, fits } = layoutLayeredFits(graph);
  // No worker (tests), or a graph dagre would take minutes over: the layered positions stay.
  const worker = fits && graph.nodes.length > WORKER_THRESHOLD ? workerClient() : null;
  if (!worker) return { key, positions, engine: 'layered', refined: null };
  const refined = worker.layout(graph, 'dagre').then((final) => {
    // The expected case: dagre agrees. Handing back the object already shown lets the view see
    // that nothing changed (same reference) and skip rebuilding a thousand nodes.
    const settled = samePositions(final, positions) ? positions : final;
    remember(key, settled);
    return settled;
  });
  return { key, positions, engine: 'layered', refined };
}
