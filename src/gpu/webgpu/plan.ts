/**
 * Turns a Graph into a device-independent list of kernel calls: forward in recording order, backward
 * in reverse (the tape), then the gradient norm (two calls) + adam. The list is materialised on a device by model.ts,
 * and again on a fresh device after a loss.
 *
 * One forward and one backward case per graph op, in plan-forward.ts and plan-backward.ts (a case
 * per op reads against cpu/ops.ts more easily than a split by op family would); the call and binding
 * types and the helpers both share are in plan-calls.ts. This file is the plan's import path.
 */
import { groupGrads } from './plan-grads.ts';
import { groupSiblings } from './plan-siblings.ts';
import type { Graph } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import type { ResolvedAdam } from '../optimizer.ts';
import { SUBGROUP_TWINS, type KernelName } from './kernels.ts';
import { backwardCalls } from './plan-backward.ts';
import { f32Bits, grid, type Call, type Ref } from './plan-calls.ts';
import { forwardCalls } from './plan-forward.ts';
import { fuseCalls, unfusedCalls } from './plan-fuse.ts';

export { f32Bits, grid, type Call, type Ref } from './plan-calls.ts';

export interface Plan {
  forward: Call[];
  backward: Call[];
  /** grad_norm_partial, grad_norm (+ adam when an optimizer is set). */
  update: Call[];
}

/**
 * With `fuse` (default true), runs of consecutive element-wise calls become single dispatches with
 * the same bits, and scatters over short source lists run in one pass (plan-fuse.ts); without it,
 * one call per kernel of each op and two-pass scatters, the plan before fusion. With `lanes`, small
 * products split K over the invocations of matmul_lanes.wgsl (plan-calls.ts lanesFit; the last bits
 * differ from the CPU backend's, within the split-K tolerance; default false). With `wideRows`, long
 * rows take a workgroup each (layer norm and its gradient, row reductions of many rows; default
 * false; plan-forward.ts WIDE_ROW_COLS). With `subgroups` (a
 * device with the `subgroups` feature), the kernels with trees across invocations run as their
 * twins on tree_sg.wgsl: the same bits, fewer barriers (default false). With `siblings` (default
 * true) and both `fuse` and `lanes`, a forward pass's lanes products that share their left operand
 * run two or three to a dispatch (plan-siblings.ts; the same bits). With `gradGroups` (default
 * true) and both `fuse` and `lanes`, a backward pass's weight gradients of one input and its input
 * gradients into one tensor's gradient run two or three to a dispatch (plan-grads.ts; the same bits).
 */
export function buildPlan(
  graph: Graph,
  layout: ParamLayout,
  backwardIds: number[],
  clipNorm: number,
  {
    fuse = true,
    lanes = false,
    wideRows = false,
    subgroups = false,
    siblings = true,
    gradGroups = true,
  }: {
    fuse?: boolean;
    lanes?: boolean;
    wideRows?: boolean;
    subgroups?: boolean;
    siblings?: boolean;
    gradGroups?: boolean;
  } = {},
): Plan {
  const forward: Call[] = [];
  for (const n of graph.nodes)
    forward.push(...forwardCalls(graph, n, lanes, wideRows).map((c) => ({ ...c, node: n.id })));
  const backward: Call[] = [];
  for (const id of backwardIds)
    backward.push(...backwardCalls(graph, graph.node(id), lanes, wideRows).map((c) => ({ ...c, node: id })));
  const pass = fuse ? (calls: Call[]) => fuseCalls(graph, calls) : unfusedCalls;
  const twins = subgroups ? subgroupTwins : (calls: Call[]) => calls;
  // Sibling lanes products (plan-siblings.ts) in one dispatch, with the fused plan.
  const group =
    siblings && fuse && lanes
      ? (calls: Call[]) => groupSiblings(graph, layout, calls)
      : (calls: Call[]) => calls;
  // Gradient products grouped by operand (plan-grads.ts), with the fused plan.
  const groupBack =
    gradGroups && fuse && lanes
      ? (calls: Call[]) => groupGrads(graph, layout, calls)
      : (calls: Call[]) => calls;
  return {
    forward: twins(group(pass(forward))),
    backward: twins(groupBack(pass(backward))),
    update: twins(gradNormCalls(layout.total, clipNorm)),
  };
}

/** The calls with each kernel that has a subgroup twin (kernels.ts SUBGROUP_TWINS) on its twin. */
export function subgroupTwins(calls: Call[]): Call[] {
  const twins: Partial<Record<KernelName, KernelName>> = SUBGROUP_TWINS;
  return calls.map((c) => {
    const twin = twins[c.kernel];
    return twin ? { ...c, kernel: twin } : c;
  });
}

/** Floats per workgroup of grad_norm_partial.wgsl (it hard-codes them). */
export const NORM_BLOCK = 4096;
/** The update list starts with this many calls that compute the norm (adam, when set, follows). */
export const NORM_CALLS = 2;

/**
 * [‖g‖₂, clip scale] of the gradient arena (`total` floats) in two levels: grad_norm_partial.wgsl
 * sums the squares of each block of NORM_BLOCK floats, grad_norm.wgsl the block sums.
 */
export function gradNormCalls(total: number, clipNorm: number): Call[] {
  const blocks = Math.ceil(total / NORM_BLOCK);
  const partial: Ref = { t: 'temp', id: -1, slot: 'normPartial', floats: Math.max(1, blocks) };
  const uniform = [total, f32Bits(clipNorm)];
  return [
    {
      kernel: 'grad_norm_partial',
      constants: {},
      uniform,
      refs: [{ t: 'arena', which: 'grads' }, partial],
      wg: grid(blocks, 1),
    },
    { kernel: 'grad_norm', constants: {}, uniform, refs: [partial, { t: 'norm' }], wg: [1, 1, 1] },
  ];
}

/** The adam call; its uniform (bias corrections) is rewritten every step by the model. */
export function adamCall(total: number): Call {
  return {
    kernel: 'adam',
    constants: {},
    uniform: [total, 0, 0, 0, 0, 0, 0, 0],
    refs: [
      { t: 'arena', which: 'params' },
      { t: 'arena', which: 'grads' },
      { t: 'arena', which: 'm' },
      { t: 'arena', which: 'v' },
      { t: 'norm' },
    ],
    wg: grid(total, 256),
  };
}

/** The adam call's uniform for optimizer step `t` (1-based): learning rate and bias corrections. */
export function adamUniform(a: ResolvedAdam, total: number, t: number, lr?: number): Uint32Array {
  return new Uint32Array([
    total,
    f32Bits(lr ?? a.lr),
    f32Bits(a.beta1),
    f32Bits(a.beta2),
    f32Bits(a.eps),
    f32Bits(a.weightDecay),
    f32Bits(1 - Math.pow(a.beta1, t)),
    f32Bits(1 - Math.pow(a.beta2, t)),
  ]);
}

/** The (index input, destination rows) pairs whose CSR lists the plan's scatter calls read. */
export function csrKeysOf(plan: Plan): { idx: number; rows: number }[] {
  const keys = new Map<string, { idx: number; rows: number }>();
  for (const c of [...plan.forward, ...plan.backward])
    for (const r of c.refs) if (r.t === 'csr') keys.set(`${r.idx}:${r.rows}`, { idx: r.idx, rows: r.rows });
  return [...keys.values()];
}

/** The nodes a forward call computes: its own, or each fused part's. */
export function callNodesOf(c: Call): number[] {
  return [...new Set([c, ...(c.fused?.parts ?? [])].flatMap((x) => (x.node === undefined ? [] : [x.node])))];
}
