/**
 * A backward pass's lanes products grouped by operand, two or three to a dispatch, each summed as
 * its matmul_lanes.wgsl call sums it alone, so every gradient keeps its bits:
 *
 * - weight gradients of products with one left operand (a graph layer's x·W_in, x·W_out, x·W_self;
 *   dW_p += xᵀ·dY_p) → matmul_wgrads.wgsl;
 * - input gradients into one tensor's gradient (dx += dY_p·W_pᵀ, the same products) →
 *   matmul_xgrads.wgsl, which adds them into dx in the calls' order.
 *
 * The members of a group are not neighbours: between them the tape runs the calls that make the
 * later members' dY_p (a message's gather and scatter gradients). A group therefore runs at its
 * last member's place, and a call joins only if no call it would be moved past writes what it
 * reads, or reads or writes what it writes (the bindings' access modes are read from the kernels'
 * WGSL; slices of a parameter arena are told apart by their parameter). On a real GPU a small
 * policy update is bound by its dispatches (docs/benchmarks.md); each group saves one or two.
 *
 * The uniform words: matmul_wgrads.wgsl `Group` is plan-siblings.ts's (m, k, count, 0, each
 * member's n, weight offset and workgroup end); matmul_xgrads.wgsl `Group` is m, n, k, count and
 * each member's weight offset. live.ts writes the live rows (k of a weight gradient, m of an input
 * gradient) through the members' own sizers.
 */
import type { Graph } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import { KERNELS, type KernelName } from './kernels.ts';
import type { Call, Ref } from './plan-calls.ts';
import { sameRef } from './plan-calls.ts';
import { fitsOneDispatch, MAX_SIBLINGS, siblingWords } from './plan-siblings.ts';

/** How far past a group's first member its partners are looked for. */
export const GROUP_WINDOW = 48;

type Kind = 'w' | 'x';

const isParam = (graph: Graph, r: Ref | undefined, t: 'value' | 'grad'): boolean =>
  r !== undefined && r.t === t && graph.node(r.id).op.kind === 'param';

/** 'w': a weight gradient xᵀ·dY into a parameter's gradient; 'x': an input gradient dY·Wᵀ; or null. */
function kindOf(graph: Graph, c: Call): Kind | null {
  if (c.kernel !== 'matmul_lanes' || c.fused !== undefined || c.node === undefined) return null;
  const k = c.constants;
  if (k.ACCUMULATE !== 1 || c.uniform[3] !== 1) return null;
  const [a, b, out] = c.refs;
  if (
    k.TRANS_A === 1 &&
    k.TRANS_B === 0 &&
    isParam(graph, out, 'grad') &&
    a?.t !== 'arena' &&
    b?.t !== 'arena'
  )
    return isParam(graph, b, 'value') || isParam(graph, b, 'grad') ? null : 'w';
  if (k.TRANS_A === 0 && k.TRANS_B === 1 && isParam(graph, b, 'value') && out?.t === 'grad')
    return isParam(graph, out, 'grad') || isParam(graph, a, 'value') || a?.t === 'arena' ? null : 'x';
  return null;
}

/** Whether `o` joins a group of `kind` started by `c`. */
function partner(kind: Kind, c: Call, o: Call): boolean {
  const [m, n, k] = c.uniform;
  if (o.uniform[0] !== m || o.uniform[2] !== k || o.constants.LK !== c.constants.LK) return false;
  return kind === 'w' ? sameRef(o.refs[0], c.refs[0]) : sameRef(o.refs[2], c.refs[2]) && o.uniform[1] === n;
}

const accessCache = new Map<KernelName, boolean[]>();

/** Per binding of `kernel` after the uniform (a call's refs), whether the kernel writes it. */
export function writtenBindings(kernel: KernelName): boolean[] {
  let w = accessCache.get(kernel);
  if (!w) {
    w = [];
    for (const m of KERNELS[kernel].matchAll(/@binding\((\d+)\)\s*var<storage,\s*(read_write|read)>/g))
      w[Number(m[1]) - 1] = m[2] === 'read_write';
    accessCache.set(kernel, w);
  }
  return w;
}

/** A buffer's key; a parameter's slice of an arena is `arena:id`, the whole arena `arena:*`. */
function keyOf(graph: Graph, r: Ref): string | null {
  switch (r.t) {
    case 'value':
      return isParam(graph, r, 'value') ? `params:${r.id}` : `v${r.id}`;
    case 'grad':
      return isParam(graph, r, 'grad') ? `grads:${r.id}` : `g${r.id}`;
    case 'arena':
      return `${r.which}:*`;
    case 'temp':
      return `t${r.id}.${r.slot}`;
    case 'csr':
      return `csr${r.idx}:${r.rows}.${r.part}`;
    case 'norm':
      return 'norm';
    default:
      // ones and zeros are never written; the sink is never read.
      return null;
  }
}

const overlap = (a: string, b: string): boolean => {
  if (a === b) return true;
  const [pa, ia] = a.split(':');
  const [pb, ib] = b.split(':');
  return ia !== undefined && ib !== undefined && pa === pb && (ia === '*' || ib === '*');
};

interface Access {
  reads: string[];
  writes: string[];
}

function accessOf(graph: Graph, c: Call): Access {
  const written = writtenBindings(c.kernel);
  const reads: string[] = [];
  const writes: string[] = [];
  c.refs.forEach((r, i) => {
    const k = keyOf(graph, r);
    if (k !== null) (written[i] ? writes : reads).push(k);
  });
  return { reads, writes };
}

/** Whether running `moved` after `c` (instead of before it) changes what either computes. */
function conflict(moved: Access, c: Access): boolean {
  const any = (xs: string[], ys: string[]): boolean => xs.some((x) => ys.some((y) => overlap(x, y)));
  return any(c.writes, moved.reads) || any(c.writes, moved.writes) || any(c.reads, moved.writes);
}

/** The group's call, run at its last member's place. */
function groupCall(kind: Kind, layout: ParamLayout, parts: Call[]): Call {
  const first = parts[0] as Call;
  const LK = first.constants.LK as number;
  const node = first.node as number;
  const fused = { parts, words: [], per: 64 };
  const pad = <T>(xs: T[], fill: T): T[] => [...xs, ...Array<T>(MAX_SIBLINGS - xs.length).fill(fill)];
  const offsetOf = (r: Ref | undefined): number => layout.offsets.get((r as { id: number }).id) ?? 0;
  if (kind === 'w') {
    const { uniform, wg } = siblingWords(
      parts,
      first.uniform[0] as number,
      parts.map((p) => offsetOf(p.refs[2])),
    );
    const bs = parts.map((p) => p.refs[1] as Ref);
    return {
      kernel: 'matmul_wgrads',
      constants: { LK },
      uniform,
      refs: [first.refs[0] as Ref, ...pad(bs, bs[0] as Ref), { t: 'arena', which: 'grads' }],
      wg,
      node,
      fused,
    };
  }
  const [m, n, k] = first.uniform as [number, number, number];
  const offsets = pad(
    parts.map((p) => offsetOf(p.refs[1])),
    0,
  );
  const as = parts.map((p) => p.refs[0] as Ref);
  return {
    kernel: 'matmul_xgrads',
    constants: { LK },
    uniform: [m, n, k, parts.length, ...offsets, 0],
    refs: [...pad(as, as[0] as Ref), { t: 'arena', which: 'params' }, first.refs[2] as Ref],
    wg: first.wg,
    node,
    fused,
  };
}

/** The first group that can be formed in `calls`: its members' indices, in order, and its kind. */
function firstGroup(
  graph: Graph,
  calls: readonly Call[],
  access: Access[],
): { members: number[]; kind: Kind } | null {
  for (let i = 0; i < calls.length; i++) {
    const c = calls[i] as Call;
    const kind = kindOf(graph, c);
    if (!kind) continue;
    const members = [i];
    for (let j = i + 1; j < calls.length && j <= i + GROUP_WINDOW && members.length < MAX_SIBLINGS; j++) {
      const o = calls[j] as Call;
      if (kindOf(graph, o) !== kind || !partner(kind, c, o)) continue;
      // Weight gradients run side by side: no two into one parameter's gradient, and their
      // workgroups, one run per member, within one dispatch's.
      if (kind === 'w' && members.some((m) => sameRef((calls[m] as Call).refs[2], o.refs[2]))) continue;
      if (kind === 'w' && !fitsOneDispatch(calls, members, o)) continue;
      // Every member so far moves to j: past no call that conflicts with it.
      const movable = members.every((m) => {
        for (let q = m + 1; q < j; q++)
          if (!members.includes(q) && conflict(access[m] as Access, access[q] as Access)) return false;
        return true;
      });
      if (movable) members.push(j);
    }
    if (members.length > 1) return { members, kind };
  }
  return null;
}

/** `calls` with groups of weight gradients and of input gradients each in one call (see above). */
export function groupGrads(graph: Graph, layout: ParamLayout, calls: readonly Call[]): Call[] {
  let out = [...calls];
  for (;;) {
    const access = out.map((c) => accessOf(graph, c));
    const g = firstGroup(graph, out, access);
    if (!g) return out;
    const parts = g.members.map((i) => out[i] as Call);
    const last = g.members[g.members.length - 1] as number;
    const call = groupCall(g.kind, layout, parts);
    out = out.flatMap((c, i) => (i === last ? [call] : g.members.includes(i) ? [] : [c]));
  }
}
