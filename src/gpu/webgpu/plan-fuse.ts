/**
 * Fewer dispatches, the same bits: a pass over a list of planned calls (plan.ts) that replaces short
 * runs of consecutive element-wise calls by one fused call. On a real GPU a small policy update is
 * bound by the number of dispatches, not by arithmetic, so each fused call saves a dispatch's fixed
 * cost. The runs, in the order they are tried at each position:
 *
 * - add/sub, add/sub, bias_act → binary_bias_act.wgsl (CHAIN = 2): a sum of three terms and its
 *   activation (a message-passing layer's self term plus two neighbour sums);
 * - gather_rows, add/sub reading it, bias_act → gather_binary_bias_act.wgsl;
 * - gather_rows, gather_rows, binary reading both → gather_binary.wgsl with both gathers;
 * - add/sub, bias_act → binary_bias_act.wgsl (CHAIN = 1);
 * - gather_rows, binary reading it → gather_binary.wgsl with one gather (edge messages scaled by a
 *   weight: gather then mul);
 * - the two gradients of an add/sub, then the two of an add/sub whose output is one of its
 *   operands → binary_grad_chain.wgsl (a sum of three terms, backward);
 * - binary_grad of operand a, then of operand b of the same op → binary_grad_pair.wgsl;
 * - gather_rows (ACCUMULATE = 1: the backward of a row scatter), then one binary_grad that reads
 *   the gradient it accumulated → gather_grad.wgsl;
 * - softmax and log-softmax of one tensor → softmax_pair.wgsl (one invocation per row, as
 *   softmax.wgsl), and their two softmax_grad calls into one gradient → softmax_grad_pair.wgsl;
 * - col_partial + col_sum over at most COL_SHORT_ROWS planned rows → col_rows.wgsl (a bias
 *   gradient of a small layer), over at most COL_BLOCKS_MAX blocks of 64 rows → col_blocks.wgsl;
 * - in the policy's loss: [sigmoid,] a Bernoulli log-probability whose target that sigmoid made
 *   from the same logits, [a product by a mask] → bernoulli_chain.wgsl (at least two of the three);
 *   a row reduction, then a binary op of the same length on its result → reduce_binary.wgsl; and
 *   backward, a reduction's gradient, then one or both gradients of the binary op whose output it
 *   reduced → reduce_grad_binary.wgsl; both gradients of a binary op, then the gradient of the
 *   unary op or one-column reduction that made one of its operands → grad_pair_then.wgsl;
 * - bias_act_grad, then both gradients of the add or sub it activated → bias_act_grad_pair.wgsl,
 *   the bias gradient's column sums (which read only dz) moved after it.
 *
 * Why the bits stay the same: a fused kernel runs, per element i, each part's own expression in
 * the parts' order, and stores every output the parts store (a value or gradient another call or
 * `read` may want); a later part reads an earlier one's output only at its own element i, which the
 * same invocation has just written (or left alone, past that part's live length). No fused run
 * feeds a product into a later addition (only add and sub reach a bias; a reduction's sum takes no
 * fused product, its binary comes after it; a sigmoid or log-probability feeds only a product; a
 * gradient passed on is a sum that a later part multiplies), so a shader compiler has no new
 * multiply-add to contract; the expressions that could be contracted (binary_grad's g + d·gy) are
 * the same ones, in the same form, as in the separate kernels. Every buffer a fused
 * call writes is bound once, and no buffer it reads is one it writes (checked below), so no part
 * sees another's writes out of order and WebGPU's rule against aliased writable bindings holds.
 * Each part keeps its own length (word `fused.words[j]` of the uniform), which live.ts sets from
 * the part's live rows exactly as for the separate call.
 */
import type { Graph } from '../graph.ts';
import type { Call, Ref } from './plan-calls.ts';
import { BIN, grid, RED, sameRef, UN } from './plan-calls.ts';

/** The buffer a binding reads or writes (slices of one arena count as one buffer). */
function bufferOf(graph: Graph, r: Ref): string {
  switch (r.t) {
    case 'value':
      return graph.node(r.id).op.kind === 'param' ? 'params' : `v${r.id}`;
    case 'grad':
      return graph.node(r.id).op.kind === 'param' ? 'grads' : `g${r.id}`;
    case 'temp':
      return `t${r.id}.${r.slot}`;
    case 'csr':
      return `csr${r.idx}:${r.rows}.${r.part}`;
    case 'arena':
      return r.which;
    default:
      return r.t;
  }
}

/** No written buffer is bound twice or also read (WebGPU refuses aliased writable bindings). */
function bindable(graph: Graph, refs: Ref[], writes: boolean[]): boolean {
  const bufs = refs.map((r) => bufferOf(graph, r));
  return bufs.every((b, i) => !writes[i] || bufs.every((o, j) => j === i || o !== b));
}

/** A plain binary call (forward add/sub/mul). */
const isBinary = (c: Call | undefined): c is Call => c?.kernel === 'binary';
/** add or sub: the only binary ops fused in front of an addition (no multiply-add to contract). */
const isSum = (c: Call | undefined): c is Call => isBinary(c) && c.constants.OP !== BIN.mul;
const isGather = (c: Call | undefined, acc: 0 | 1): c is Call =>
  c?.kernel === 'gather_rows' && c.constants.ACCUMULATE === acc;
const len = (c: Call): number => c.uniform[0] as number;
const ZERO: Ref = { t: 'zeros', floats: 1 };
const SINK: Ref = { t: 'sink' };

function fusedCall(
  graph: Graph,
  kernel: Call['kernel'],
  constants: Record<string, number>,
  uniform: number[],
  refs: Ref[],
  writes: boolean[],
  parts: Call[],
  words: number[],
  per = 256,
): Call | null {
  const n = len(parts[0] as Call);
  if (parts.some((p) => len(p) !== n) || !bindable(graph, refs, writes)) return null;
  const fused = { parts, words, per };
  return { kernel, constants, uniform, refs, wg: grid(n, per), node: parts.at(-1)?.node, fused };
}

/** add/sub, [add/sub,] bias_act → binary_bias_act (null when `calls` do not form that run). */
function biasChain(graph: Graph, calls: (Call | undefined)[]): Call | null {
  const [c0, c1, c2] = calls;
  if (!isSum(c0)) return null;
  const m1 = c0.refs[2] as Ref;
  const [x0, x1] = c0.refs as [Ref, Ref];
  if (isSum(c1) && c2?.kernel === 'bias_act') {
    const [a, b, m2] = c1.refs as [Ref, Ref, Ref];
    const side = sameRef(a, m1) ? 0 : sameRef(b, m1) ? 1 : -1;
    if (side < 0 || !sameRef(c2.refs[0], m2)) return null;
    const x2 = side === 0 ? b : a;
    return fusedCall(
      graph,
      'binary_bias_act',
      {
        CHAIN: 2,
        OP1: c0.constants.OP ?? 0,
        OP2: c1.constants.OP ?? 0,
        SIDE2: side,
        ACT: c2.constants.ACT ?? 0,
      },
      [len(c0), len(c1), len(c2), c2.uniform[1] as number],
      [x0, x1, m1, x2, m2, c2.refs[1] as Ref, c2.refs[2] as Ref],
      [false, false, true, false, true, false, true],
      [c0, c1, c2],
      [0, 1, 2],
    );
  }
  if (c1?.kernel === 'bias_act' && sameRef(c1.refs[0], m1))
    return fusedCall(
      graph,
      'binary_bias_act',
      { CHAIN: 1, OP1: c0.constants.OP ?? 0, OP2: 0, SIDE2: 0, ACT: c1.constants.ACT ?? 0 },
      [len(c0), 0, len(c1), c1.uniform[1] as number],
      [x0, x1, m1, ZERO, SINK, c1.refs[1] as Ref, c1.refs[2] as Ref],
      [false, false, true, false, true, false, true],
      [c0, c1],
      [0, 2],
    );
  return null;
}

/** gather_rows, [gather_rows,] binary reading the gathered rows → gather_binary. */
function gatherChain(graph: Graph, calls: (Call | undefined)[], two: boolean): Call | null {
  const gathers = (two ? calls.slice(0, 2) : calls.slice(0, 1)) as (Call | undefined)[];
  const bin = calls[gathers.length];
  if (!gathers.every((g) => isGather(g, 0)) || !isBinary(bin)) return null;
  const [a, b, y] = bin.refs as [Ref, Ref, Ref];
  // Operand side of each gather: 0 = a, 1 = b.
  const sides = (gathers as Call[]).map((g) => (sameRef(a, g.refs[2]) ? 0 : sameRef(b, g.refs[2]) ? 1 : -1));
  if (sides.includes(-1) || new Set(sides).size !== sides.length || sameRef(a, b)) return null;
  const side = (s: 0 | 1): { g: Call | null; word: number } => {
    const k = sides.indexOf(s);
    return { g: k < 0 ? null : (gathers[k] as Call), word: s };
  };
  const A = side(0);
  const B = side(1);
  const refsOf = (x: { g: Call | null }, plain: Ref): Ref[] =>
    x.g ? [x.g.refs[0] as Ref, x.g.refs[1] as Ref, x.g.refs[2] as Ref] : [plain, ZERO, SINK];
  const cols = (gathers[0] as Call).uniform[1] as number;
  return fusedCall(
    graph,
    'gather_binary',
    { OP: bin.constants.OP ?? 0, GA: A.g ? 1 : 0, GB: B.g ? 1 : 0 },
    [
      A.g ? len(A.g) : 0,
      B.g ? len(B.g) : 0,
      len(bin),
      cols,
      (A.g?.uniform[2] as number | undefined) ?? 0,
      (B.g?.uniform[2] as number | undefined) ?? 0,
    ],
    [...refsOf(A, a), ...refsOf(B, b), y],
    [false, false, A.g !== null, false, false, B.g !== null, true],
    [...(gathers as Call[]), bin],
    [...sides, 2],
  );
}

/** gather_rows, add/sub reading it (and a tensor of its own), bias_act → gather_binary_bias_act. */
function gatherBias(graph: Graph, [c0, c1, c2]: (Call | undefined)[]): Call | null {
  if (!isGather(c0, 0) || !isSum(c1) || c2?.kernel !== 'bias_act') return null;
  const [a, b, y] = c1.refs as [Ref, Ref, Ref];
  const g = c0.refs[2] as Ref;
  const side = sameRef(b, g) && !sameRef(a, g) ? 1 : sameRef(a, g) && !sameRef(b, g) ? 0 : -1;
  if (side < 0 || !sameRef(c2.refs[0], y)) return null;
  return fusedCall(
    graph,
    'gather_binary_bias_act',
    { OP: c1.constants.OP ?? 0, SIDE: side, ACT: c2.constants.ACT ?? 0 },
    [len(c0), len(c1), len(c2), c2.uniform[1] as number, c0.uniform[2] as number],
    [side === 1 ? a : b, c0.refs[0] as Ref, c0.refs[1] as Ref, g, y, c2.refs[1] as Ref, c2.refs[2] as Ref],
    [false, false, false, true, true, false, true],
    [c0, c1, c2],
    [0, 1, 2],
  );
}

/** binary_grad of a, then of b, of one op → binary_grad_pair. */
function gradPair(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (c0?.kernel !== 'binary_grad' || c1?.kernel !== 'binary_grad' || c0.node !== c1.node) return null;
  if (c0.constants.WHICH !== 0 || c1.constants.WHICH !== 1 || c0.constants.OP !== c1.constants.OP)
    return null;
  const [a, b, gy, ga] = c0.refs as [Ref, Ref, Ref, Ref];
  return fusedCall(
    graph,
    'binary_grad_pair',
    { OP: c0.constants.OP ?? 0 },
    [len(c0), len(c1)],
    [a, b, gy, ga, c1.refs[3] as Ref],
    [false, false, false, true, true],
    [c0, c1],
    [0, 1],
  );
}

/**
 * Both gradients of an add/sub, then both of an add/sub whose output is one of the first's
 * operands (its gradient just written) → binary_grad_chain.
 */
function gradChain(graph: Graph, calls: (Call | undefined)[]): Call | null {
  const [a1, b1, a2, b2] = calls;
  const sum = (c: Call | undefined): c is Call => c?.kernel === 'binary_grad' && c.constants.OP !== BIN.mul;
  if (!sum(a1) || !sum(b1) || !sum(a2) || !sum(b2) || !gradPair(graph, a1, b1) || !gradPair(graph, a2, b2))
    return null;
  const gy2 = a2.refs[2] as Ref;
  const side = sameRef(gy2, a1.refs[3]) ? 0 : sameRef(gy2, b1.refs[3]) ? 1 : -1;
  if (side < 0) return null;
  return fusedCall(
    graph,
    'binary_grad_chain',
    { OP1: a1.constants.OP ?? 0, OP2: a2.constants.OP ?? 0, SIDE: side },
    [len(a1), len(b1), len(a2), len(b2)],
    [a1.refs[2] as Ref, a1.refs[3] as Ref, b1.refs[3] as Ref, a2.refs[3] as Ref, b2.refs[3] as Ref],
    [false, true, true, true, true],
    [a1, b1, a2, b2],
    [0, 1, 2, 3],
  );
}

/** gather_rows accumulating a gradient, then one binary_grad reading it → gather_grad. */
function gatherGrad(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (!isGather(c0, 1) || c1?.kernel !== 'binary_grad') return null;
  const [table, idx, gm] = c0.refs as [Ref, Ref, Ref];
  const [a, b, gy, g] = c1.refs as [Ref, Ref, Ref, Ref];
  if (!sameRef(gy, gm)) return null;
  return fusedCall(
    graph,
    'gather_grad',
    { OP: c1.constants.OP ?? 0, WHICH: c1.constants.WHICH ?? 0 },
    [len(c0), len(c1), c0.uniform[1] as number, c0.uniform[2] as number],
    [table, idx, gm, a, b, g],
    [false, false, true, false, false, true],
    [c0, c1],
    [0, 1],
  );
}

/** softmax and log-softmax of one tensor and mask (forward) → softmax_pair. */
function softmaxPair(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (c0?.kernel !== 'softmax' || c1?.kernel !== 'softmax' || c0.constants.LOG === c1.constants.LOG)
    return null;
  if (!sameRef(c0.refs[0], c1.refs[0]) || !sameRef(c0.refs[1], c1.refs[1])) return null;
  if (c0.uniform.some((u, i) => c1.uniform[i] !== u)) return null;
  const [prob, logp] = c0.constants.LOG === 1 ? [c1, c0] : [c0, c1];
  const [rows, cols, maskRows] = c0.uniform as [number, number, number];
  return fusedCall(
    graph,
    'softmax_pair',
    {},
    [rows, rows, cols, maskRows],
    [c0.refs[0] as Ref, c0.refs[1] as Ref, prob.refs[2] as Ref, logp.refs[2] as Ref],
    [false, false, true, true],
    [c0, c1],
    c0 === prob ? [0, 1] : [1, 0],
    64,
  );
}

/** Two softmax_grad calls into one gradient (backward of a softmax and a log-softmax of one tensor). */
function softmaxGradPair(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (c0?.kernel !== 'softmax_grad' || c1?.kernel !== 'softmax_grad') return null;
  const [y1, gy1, mask, gx] = c0.refs as [Ref, Ref, Ref, Ref];
  const [y2, gy2, mask2, gx2] = c1.refs as [Ref, Ref, Ref, Ref];
  if (!sameRef(gx, gx2) || !sameRef(mask, mask2) || c0.uniform.some((u, i) => c1.uniform[i] !== u))
    return null;
  const [rows, cols, maskRows] = c0.uniform as [number, number, number];
  return fusedCall(
    graph,
    'softmax_grad_pair',
    { LOG1: c0.constants.LOG ?? 0, LOG2: c1.constants.LOG ?? 0 },
    [rows, rows, cols, maskRows],
    [y1, gy1, y2, gy2, mask, gx],
    [false, false, false, false, false, true],
    [c0, c1],
    [0, 1],
    64,
  );
}

/** Column sums of at most this many planned rows run in one pass (col_rows.wgsl). */
export const COL_SHORT_ROWS = 256;
/** Column sums of at most this many blocks of 64 rows run in one dispatch (col_blocks.wgsl's MAX_BLOCKS). */
export const COL_BLOCKS_MAX = 256;

/**
 * col_partial + col_sum → one call of its own: col_rows (one invocation per column) over at most
 * COL_SHORT_ROWS rows, else col_blocks (one workgroup per column) over at most COL_BLOCKS_MAX
 * blocks of 64 rows; sized by live.ts like col_sum.
 */
function colRows(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (c0?.kernel !== 'col_partial' || c1?.kernel !== 'col_sum' || !sameRef(c0.refs[1], c1.refs[0]))
    return null;
  const [rows, cols] = c0.uniform as [number, number];
  const short = rows <= COL_SHORT_ROWS;
  if ((!short && Math.ceil(rows / 64) > COL_BLOCKS_MAX) || c0.node !== c1.node) return null;
  const refs = [c0.refs[0] as Ref, c1.refs[1] as Ref];
  if (!bindable(graph, refs, [false, true])) return null;
  return {
    kernel: short ? 'col_rows' : 'col_blocks',
    constants: { ACCUMULATE: c1.constants.ACCUMULATE ?? 1 },
    uniform: [rows, cols],
    refs,
    wg: short ? c1.wg : grid(cols * 64, 64),
    node: c1.node,
  };
}

/** The tensor a call's node reduces (null for other calls). */
function reducedOf(graph: Graph, c: Call): number | null {
  const op = c.node === undefined ? null : graph.node(c.node).op;
  return op?.kind === 'reduce' ? op.x : null;
}

/**
 * [unary sigmoid,] bernoulli whose logits are the sigmoid's input and whose target is its output,
 * [binary mul reading the log-probability] → bernoulli_chain (null unless two of the three).
 */
function bernoulliChain(graph: Graph, calls: (Call | undefined)[]): Call | null {
  const [c0] = calls;
  const sig = c0?.kernel === 'unary' && c0.constants.OP === UN.sigmoid ? c0 : null;
  const bern = calls[sig ? 1 : 0];
  if (bern?.kernel !== 'bernoulli') return null;
  const [x, t, y] = bern.refs as [Ref, Ref, Ref];
  if (sig && (!sameRef(sig.refs[0], x) || !sameRef(sig.refs[1], t))) return null;
  const c2 = calls[sig ? 2 : 1];
  const reads =
    isBinary(c2) && c2.constants.OP === BIN.mul && sameRef(c2.refs[0], y) !== sameRef(c2.refs[1], y);
  const mul = reads ? (c2 as Call) : null;
  if (!sig && !mul) return null;
  const m = mul ? ((sameRef(mul.refs[0], y) ? mul.refs[1] : mul.refs[0]) as Ref) : ZERO;
  return fusedCall(
    graph,
    'bernoulli_chain',
    { SIG: sig ? 1 : 0, MUL: mul ? 1 : 0 },
    [sig ? len(sig) : 0, len(bern), mul ? len(mul) : 0],
    [x, sig ? ZERO : t, sig ? t : SINK, y, m, mul ? (mul.refs[2] as Ref) : SINK],
    [false, false, true, true, false, true],
    [sig, bern, mul].filter((c): c is Call => c !== null),
    [...(sig ? [0] : []), 1, ...(mul ? [2] : [])],
  );
}

/** A reduction over the rows of a matrix, then a binary op of one output per row reading it → reduce_binary. */
function reduceBinary(graph: Graph, c0: Call | undefined, c1: Call | undefined): Call | null {
  if (c0?.kernel !== 'reduce' || !isBinary(c1)) return null;
  const x = reducedOf(graph, c0);
  if (x === null || graph.node(x).shape.length < 2) return null;
  const y = c0.refs[1] as Ref;
  const [a, b, z] = c1.refs as [Ref, Ref, Ref];
  if (sameRef(a, y) === sameRef(b, y)) return null;
  const side = sameRef(a, y) ? 0 : 1;
  const [rows, cols] = c0.uniform as [number, number];
  return fusedCall(
    graph,
    'reduce_binary',
    { OP: c0.constants.OP ?? 0, BOP: c1.constants.OP ?? 0, SIDE: side },
    [rows, cols, len(c1)],
    [c0.refs[0] as Ref, y, side === 0 ? b : a, z],
    [false, true, false, true],
    [c0, c1],
    [0, 2],
    64,
  );
}

/**
 * A reduction's gradient, then the gradient of one or both operands of the binary op whose output
 * it finished (reading it as that op's gy) → reduce_grad_binary. A vector's mean is left alone: its
 * gradient's column count follows the live length, which a fused part does not write.
 */
function reduceGradBinary(graph: Graph, calls: (Call | undefined)[]): Call | null {
  const [c0, c1, c2] = calls;
  if (c0?.kernel !== 'reduce_grad' || c1?.kernel !== 'binary_grad') return null;
  const x = reducedOf(graph, c0);
  if (x === null || (graph.node(x).shape.length < 2 && c0.constants.OP === RED.mean)) return null;
  const [xr, yr, gy, gx] = c0.refs as [Ref, Ref, Ref, Ref];
  if (!sameRef(c1.refs[2], gx)) return null;
  const pair = gradPair(graph, c1, c2) !== null;
  const [ga, gb] = pair ? [c1, c2 as Call] : c1.constants.WHICH === 1 ? [null, c1] : [c1, null];
  const [a, b] = c1.refs as [Ref, Ref];
  return fusedCall(
    graph,
    'reduce_grad_binary',
    { OP: c0.constants.OP ?? 0, BOP: c1.constants.OP ?? 0, GA: ga ? 1 : 0, GB: gb ? 1 : 0 },
    [len(c0), c0.uniform[1] as number, ga ? len(ga) : 0, gb ? len(gb) : 0],
    [xr, yr, gy, gx, a, b, ga ? (ga.refs[3] as Ref) : SINK, gb ? (gb.refs[3] as Ref) : SINK],
    [false, false, false, true, false, false, true, true],
    pair ? [c0, c1, c2 as Call] : [c0, c1],
    pair ? [0, 2, 3] : [0, ga ? 2 : 3],
  );
}

/**
 * Both gradients of a binary op, then the gradient of the op that made one of its operands, read
 * at the pair's own element: a unary op, or a reduction over one column of a matrix (its row is
 * the element) → grad_pair_then.
 */
function gradPairThen(graph: Graph, [c0, c1, c2]: (Call | undefined)[]): Call | null {
  if (!gradPair(graph, c0, c1) || (c2?.kernel !== 'unary_grad' && c2?.kernel !== 'reduce_grad')) return null;
  const [a, b, gy, ga] = (c0 as Call).refs as [Ref, Ref, Ref, Ref];
  const gb = (c1 as Call).refs[3] as Ref;
  const [x, y, g, gx] = c2.refs as [Ref, Ref, Ref, Ref];
  const side = sameRef(g, ga) ? 0 : sameRef(g, gb) ? 1 : -1;
  const next = c2.kernel === 'reduce_grad' ? 1 : 0;
  if (side < 0) return null;
  if (next === 1) {
    const r = reducedOf(graph, c2);
    if (r === null || graph.node(r).shape.length < 2 || c2.uniform[1] !== 1) return null;
  }
  return fusedCall(
    graph,
    'grad_pair_then',
    { OP: (c0 as Call).constants.OP ?? 0, SIDE: side, NEXT: next, NOP: c2.constants.OP ?? 0 },
    [len(c0 as Call), len(c1 as Call), len(c2), next === 0 ? (c2.uniform[1] as number) : 0],
    [a, b, gy, ga, gb, x, y, gx],
    [false, false, false, true, true, false, false, true],
    [c0 as Call, c1 as Call, c2],
    [0, 1, 2],
  );
}

/**
 * bias_act_grad, the column sums of its bias gradient (which read only its dz), then both gradients
 * of the add or sub whose output it activated, reading its gx → bias_act_grad_pair, with the column
 * sums after it (null unless the sums share no buffer with the pair, so that running them last
 * changes nothing, or the pair starts a binary_grad_chain). `after` holds the sums, as one col_rows
 * or col_blocks call where that applies.
 */
function biasGradPair(
  graph: Graph,
  calls: (Call | undefined)[],
): { call: Call; after: Call[]; take: number } | null {
  const [c0] = calls;
  if (c0?.kernel !== 'bias_act_grad' || c0.constants.WRITE_GX !== 1) return null;
  const sums = calls[1]?.kernel === 'col_partial' && calls[1].node === c0.node ? 2 : 0;
  const cols = calls.slice(1, 1 + sums) as Call[];
  const [ga, gb] = calls.slice(1 + sums, 3 + sums);
  if (sums > 0 && cols[1]?.kernel !== 'col_sum') return null;
  if (!gradPair(graph, ga, gb) || (ga as Call).constants.OP === BIN.mul) return null;
  // A pair that starts a chain of two sums' gradients stays with it (binary_grad_chain).
  if (gradChain(graph, calls.slice(1 + sums, 5 + sums))) return null;
  const [x, bias, gy, dz, gx] = c0.refs as [Ref, Ref, Ref, Ref, Ref];
  if (
    !sameRef((ga as Call).refs[2], gx) ||
    !cols.every((c) => disjoint(graph, c, ga) && disjoint(graph, c, gb))
  )
    return null;
  const call = fusedCall(
    graph,
    'bias_act_grad_pair',
    { ACT: c0.constants.ACT ?? 0, WRITE_GX: 1, OP: (ga as Call).constants.OP ?? 0 },
    [len(c0), c0.uniform[1] as number, len(ga as Call), len(gb as Call)],
    [x, bias, gy, dz, gx, (ga as Call).refs[3] as Ref, (gb as Call).refs[3] as Ref],
    [false, false, false, true, true, true, true],
    [c0, ga as Call, gb as Call],
    [0, 2, 3],
  );
  if (!call) return null;
  const oneCol = sums === 0 ? null : colRows(graph, cols[0], cols[1]);
  return { call, after: oneCol ? [oneCol] : cols, take: 3 + sums };
}

/** The fused call of a run that starts with `c0` (the rules above, in order) and how many calls it takes. */
function runAt(graph: Graph, [c0, c1, c2, c3]: (Call | undefined)[]): { call: Call; take: number } | null {
  const fused =
    gradChain(graph, [c0, c1, c2, c3]) ??
    gradPairThen(graph, [c0, c1, c2]) ??
    biasChain(graph, [c0, c1, c2]) ??
    gatherBias(graph, [c0, c1, c2]) ??
    gatherChain(graph, [c0, c1, c2], true) ??
    gatherChain(graph, [c0, c1], false) ??
    gradPair(graph, c0, c1) ??
    gatherGrad(graph, c0, c1) ??
    softmaxPair(graph, c0, c1) ??
    softmaxGradPair(graph, c0, c1) ??
    bernoulliChain(graph, [c0, c1, c2]) ??
    reduceBinary(graph, c0, c1) ??
    reduceGradBinary(graph, [c0, c1, c2]);
  if (fused) return { call: fused, take: fused.fused?.parts.length ?? 1 };
  const col = colRows(graph, c0, c1);
  return col ? { call: col, take: 2 } : null;
}

/** Two calls that bind no buffer in common: either order computes the same. */
function disjoint(graph: Graph, a: Call | undefined, b: Call | undefined): boolean {
  if (!a || !b) return false;
  const bufs = new Set(a.refs.map((r) => bufferOf(graph, r)));
  return b.refs.every((r) => !bufs.has(bufferOf(graph, r)));
}

/**
 * `calls` with each fusable run replaced by its fused call (see the file comment); greedy, left to
 * right. A run may also start at a call with one call in between that shares no buffer with it
 * (a product of other tensors, say): that call then runs first. An activation's gradient fused
 * with its sum's (biasGradPair) moves the bias gradient's column sums, which share no buffer with
 * the sum's gradients, after the fused call instead.
 */
export function fuseCalls(graph: Graph, calls: Call[]): Call[] {
  const out: Call[] = [];
  for (let i = 0; i < calls.length;) {
    const bias = biasGradPair(graph, calls.slice(i, i + 7));
    if (bias) {
      out.push(bias.call, ...bias.after);
      i += bias.take;
      continue;
    }
    let hit = runAt(graph, calls.slice(i, i + 4));
    let between: Call | null = null;
    if (!hit && disjoint(graph, calls[i], calls[i + 1])) {
      hit = runAt(graph, [calls[i], ...calls.slice(i + 2, i + 5)]);
      if (hit) between = calls[i + 1] as Call;
    }
    if (between) out.push(between);
    out.push(hit?.call ?? (calls[i] as Call));
    i += (hit?.take ?? 1) + (between ? 1 : 0);
  }
  return out;
}

/**
 * The calls as planned before any fusion: without the one-pass scatter (scatter_rows.wgsl), whose
 * two-pass form then always runs.
 */
export function unfusedCalls(calls: Call[]): Call[] {
  return calls.filter((c) => c.kernel !== 'scatter_rows').map(({ when: _when, ...c }) => c);
}
