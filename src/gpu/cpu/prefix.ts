/**
 * The shared-prefix products of a CPU-side model (`CompileOptions.sharedPrefix`): per input whose
 * rows share their first columns, its rows' prefix ids (`PrefixIndex`, re-indexed only when the
 * input was set with other bits); per matmul reading one, its partial sums by prefix id, kept until
 * its weight changes or the index starts a new epoch.
 */
import type { Kernels } from './runtime.ts';
import { PrefixIndex, type PrefixPartials } from './ops-matmul.ts';

export class SharedPrefixes {
  private readonly inputs = new Map<number, { index: PrefixIndex; sets: number; seen: number }>();
  private readonly partials = new Map<number, PrefixPartials>();

  /** Input node `id`'s rows share their first `d` columns (d a multiple of 4). */
  add(id: number, d: number): void {
    this.inputs.set(id, { index: new PrefixIndex(d), sets: 0, seen: -1 });
  }

  /** The prefix columns of input `id`, or undefined when it has none. */
  width(id: number): number | undefined {
    return this.inputs.get(id)?.index.d;
  }

  /** Input `id` was set with other bits: its rows are indexed again at the next product. */
  changed(id: number): void {
    const e = this.inputs.get(id);
    if (e) e.sets++;
  }

  /** y = A·B over `live` rows (A is input `a`, `node` the product; `newB`: B changed since). */
  product(
    k: Kernels,
    node: number,
    a: number,
    A: Float32Array,
    B: Float32Array,
    newB: boolean,
    y: Float32Array,
    live: number,
    n: number,
    depth: number,
  ): void {
    const e = this.inputs.get(a);
    if (!e) throw new Error(`input ${a} has no shared prefix`);
    const index = e.index;
    if (e.seen !== e.sets || index.rows !== live) {
      index.index(A, live, depth);
      e.seen = e.sets;
    }
    let p = this.partials.get(node);
    if (!p || newB || p.epoch !== index.epoch) {
      p = { epoch: index.epoch, rows: [] };
      this.partials.set(node, p);
    }
    k.matmulSharedPrefix(A, B, y, live, n, depth, index.d, index.ids, p.rows);
  }
}
