/**
 * Sibling products in one dispatch: a forward pass's lanes products (matmul_lanes.wgsl) that share
 * their left operand and multiply it by weights of the parameter arena (a layer's x·W_in, x·W_out
 * and x·W_self; the state's products with three heads) run two or three at a time on
 * matmul_siblings.wgsl, each as its lanes call would run it, so every value keeps its bits. The
 * group takes the place of its first member: its operand is computed by then and its weights are
 * parameters, and the later members' outputs are read only after their own places, which the group
 * runs before. On a real GPU a small policy update is bound by its dispatches (docs/benchmarks.md),
 * and each group saves one or two.
 *
 * The uniform words (matmul_siblings.wgsl `Siblings`): m, k, count, 0, each member's n, each one's
 * weight offset in the arena, and where each one's workgroups end (cumulative); live.ts writes m
 * and the ends for the live rows, the members all having the left operand's rows.
 */
import type { Graph } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import type { Call, Ref } from './plan-calls.ts';
import { lanesWorkgroups, MAX_WG, sameRef } from './plan-calls.ts';

/** At most this many products per dispatch (a left operand, the arena and three outputs: 5 storage bindings). */
export const MAX_SIBLINGS = 3;

/** A lanes product this pass can group: no transposes, batch 1, a fresh output, a parameter weight. */
function groupable(graph: Graph, c: Call): boolean {
  const [, b, out] = c.refs;
  return (
    c.kernel === 'matmul_lanes' &&
    c.constants.TRANS_A === 0 &&
    c.constants.TRANS_B === 0 &&
    c.constants.ACCUMULATE === 0 &&
    c.uniform[3] === 1 &&
    c.fused === undefined &&
    b?.t === 'value' &&
    graph.node(b.id).op.kind === 'param' &&
    out?.t === 'value'
  );
}

/**
 * Whether `next` can join the members `group` (indices into `calls`) of a group that runs one run
 * of workgroups per member: their workgroups together within one dispatch's (MAX_WG).
 */
export function fitsOneDispatch(calls: readonly Call[], group: readonly number[], next: Call): boolean {
  return group.reduce((s, g) => s + ((calls[g] as Call).wg[0] as number), next.wg[0]) <= MAX_WG;
}

/** The uniform words and workgroups of a group of `parts` for a left operand of `m` rows. */
export function siblingWords(
  parts: readonly Call[],
  m: number,
  offsets: readonly number[],
): { uniform: number[]; wg: [number, number, number] } {
  const k = parts[0]?.uniform[2] ?? 0;
  const n = parts.map((p) => p.uniform[1] as number);
  const ends: number[] = [];
  let total = 0;
  for (const p of parts) {
    total += lanesWorkgroups(m, p.uniform[1] as number, p.constants.LK as number);
    ends.push(total);
  }
  const four = (xs: readonly number[]): number[] => [0, 1, 2, 3].map((i) => xs[i] ?? 0);
  return { uniform: [m, k, parts.length, 0, ...four(n), ...four(offsets), ...four(ends)], wg: [total, 1, 1] };
}

/** `calls` with each run of sibling lanes products grouped into one call (the order otherwise kept). */
export function groupSiblings(graph: Graph, layout: ParamLayout, calls: readonly Call[]): Call[] {
  const taken = new Set<number>();
  const out: Call[] = [];
  for (let i = 0; i < calls.length; i++) {
    if (taken.has(i)) continue;
    const c = calls[i] as Call;
    if (!groupable(graph, c)) {
      out.push(c);
      continue;
    }
    const group = [i];
    for (let j = i + 1; j < calls.length && group.length < MAX_SIBLINGS; j++) {
      const o = calls[j] as Call;
      if (
        !taken.has(j) &&
        groupable(graph, o) &&
        sameRef(o.refs[0], c.refs[0]) &&
        o.uniform[0] === c.uniform[0] &&
        o.uniform[2] === c.uniform[2] &&
        o.constants.LK === c.constants.LK &&
        fitsOneDispatch(calls, group, o)
      )
        group.push(j);
    }
    if (group.length === 1) {
      out.push(c);
      continue;
    }
    for (const j of group) taken.add(j);
    const parts = group.map((j) => calls[j] as Call);
    const offsets = parts.map((p) => layout.offsets.get((p.refs[1] as { id: number }).id) ?? 0);
    const { uniform, wg } = siblingWords(parts, c.uniform[0] as number, offsets);
    const outputs = parts.map((p) => p.refs[2] as Ref);
    while (outputs.length < MAX_SIBLINGS) outputs.push({ t: 'sink' });
    out.push({
      kernel: 'matmul_siblings',
      constants: { LK: c.constants.LK as number },
      uniform,
      refs: [c.refs[0] as Ref, { t: 'arena', which: 'params' }, ...outputs],
      wg,
      ...(c.node !== undefined ? { node: c.node } : {}),
      fused: { parts, words: [], per: 64 },
    });
  }
  return out;
}
