/**
 * Turns a Graph into a device-independent list of kernel calls: forward in recording order, backward
 * in reverse (the tape), then grad_norm + adam. The list is materialised on a device by model.ts,
 * and again on a fresh device after a loss.
 *
 * One forward and one backward case per graph op, in plan-forward.ts and plan-backward.ts (a case
 * per op reads against cpu/ops.ts more easily than a split by op family would); the call and binding
 * types and the helpers both share are in plan-calls.ts. This file is the plan's import path.
 */
import type { Graph } from '../graph.ts';
import type { ParamLayout } from '../layout.ts';
import { backwardCalls } from './plan-backward.ts';
import { f32Bits, grid, type Call } from './plan-calls.ts';
import { forwardCalls } from './plan-forward.ts';

export { f32Bits, grid, type Call, type Ref } from './plan-calls.ts';

export interface Plan {
  forward: Call[];
  backward: Call[];
  /** grad_norm (+ adam when an optimizer is set). */
  update: Call[];
}

export function buildPlan(graph: Graph, layout: ParamLayout, backwardIds: number[], clipNorm: number): Plan {
  const forward: Call[] = [];
  for (const n of graph.nodes) forward.push(...forwardCalls(graph, n).map((c) => ({ ...c, node: n.id })));
  const backward: Call[] = [];
  for (const id of backwardIds)
    backward.push(...backwardCalls(graph, graph.node(id)).map((c) => ({ ...c, node: id })));
  const update: Call[] = [
    {
      kernel: 'grad_norm',
      constants: {},
      uniform: [layout.total, f32Bits(clipNorm)],
      refs: [{ t: 'arena', which: 'grads' }, { t: 'norm' }],
      wg: [1, 1, 1],
    },
  ];
  return { forward, backward, update };
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
