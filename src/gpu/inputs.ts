/**
 * The checks every backend's `setInput` makes before it takes an input: the length, the live rows,
 * and for an index input every live index within what it indexes. An index past its table read 0 on
 * WebGPU (the kernels' bounds checks), NaN on the CPU and wrote nowhere in a scatter; now it is an
 * error on every backend, raised where the index was given. Padding rows are not checked: no live
 * result reads them.
 */
import { cols, size, type Graph, type Node } from './graph.ts';

/** An index input's bound: every live index must be below `limit`; `use` names what it indexes. */
export interface IndexLimit {
  limit: number;
  use: string;
}

/** The bound of every u32 input that an op reads as an index (the tightest over its uses). */
export function indexLimits(graph: Graph): Map<number, IndexLimit> {
  const out = new Map<number, IndexLimit>();
  const bound = (id: number, limit: number, use: string): void => {
    const have = out.get(id);
    if (!have || limit < have.limit) out.set(id, { limit, use });
  };
  const rowsOf = (id: number): number => graph.node(id).shape[0] ?? 1;
  for (const n of graph.nodes) {
    const op = n.op;
    switch (op.kind) {
      case 'gatherRows':
        bound(op.idx, rowsOf(op.table), `the rows of gatherRows' table (node ${op.table})`);
        break;
      case 'scatterAddRows':
        bound(op.idx, op.rows, `the rows of scatterAddRows' output (node ${n.id})`);
        break;
      case 'pick':
        bound(op.idx, cols(graph.node(op.x).shape), `the columns picked from (node ${op.x})`);
        break;
      case 'crossEntropy':
        bound(
          op.targets,
          cols(graph.node(op.logits).shape),
          `the classes of crossEntropy (node ${op.logits})`,
        );
        break;
      default:
        break;
    }
  }
  return out;
}

/** Checks input node `n` given `data` with `rows` live rows (default: all); returns the live rows. */
export function checkInput(
  n: Node,
  data: Float32Array | Uint32Array,
  rows: number | undefined,
  limit: IndexLimit | undefined,
): number {
  const name = n.op.kind === 'input' ? n.op.name : `node ${n.id}`;
  if (data.length !== size(n.shape))
    throw new Error(`input ${name}: ${data.length} values for shape [${n.shape.join(', ')}]`);
  const full = n.shape.length === 0 ? 1 : (n.shape[0] as number);
  const live = rows ?? full;
  if (!Number.isInteger(live) || live < 0 || live > full)
    throw new Error(`input ${name}: ${rows} live rows of ${full}`);
  if (limit) {
    const entries = full === 0 ? 0 : (live * data.length) / full;
    for (let i = 0; i < entries; i++) {
      const v = data[i] as number;
      if (!(v >= 0 && v < limit.limit && Number.isInteger(v)))
        throw new Error(
          `input ${name}: index ${v} at position ${i} is outside ${limit.use}, which has ${limit.limit}`,
        );
    }
  }
  return live;
}
