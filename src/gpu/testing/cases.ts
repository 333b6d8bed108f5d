/**
 * Op cases shared by the CPU gradient checks and the WebGPU parity tests. Each case builds a small
 * graph with odd sizes, makes every differentiable operand a parameter, and reduces the op's output
 * to a scalar loss = Σ out ⊙ R with a fixed random R, so every output element gets its own weight.
 */
import type { Rng } from '../../core/rng.ts';
import { Graph } from '../graph.ts';
import type { Tensor } from '../graph.ts';
import { size } from '../graph.ts';
import { uniform } from '../init.ts';

export interface OpCase {
  name: string;
  graph: Graph;
  out: Tensor;
  loss: Tensor;
  params: Tensor[];
  inputs: Record<string, Float32Array | Uint32Array>;
  /** Gradient checks skip ops whose derivative jumps (max, relu at a kink) on a tiny step. */
  smooth: boolean;
}

type Build = (
  g: Graph,
  rng: Rng,
  p: (shape: number[], scale?: number) => Tensor,
) => {
  out: Tensor;
  inputs?: Record<string, Float32Array | Uint32Array>;
  smooth?: boolean;
  /** Multiplied into R, e.g. to zero the weight of masked log-probabilities (−1e30 would swamp the loss). */
  weight?: Float32Array;
};

function randIdx(rng: Rng, n: number, below: number): Uint32Array {
  return Uint32Array.from({ length: n }, () => rng.int(below));
}

function randMask(rng: Rng, rowsN: number, colsN: number): Float32Array {
  const m = new Float32Array(rowsN * colsN);
  for (let r = 0; r < rowsN; r++) {
    for (let c = 0; c < colsN; c++) m[r * colsN + c] = rng.next() < 0.6 ? 1 : 0;
    m[r * colsN + rng.int(colsN)] = 1;
  }
  return m;
}

const BUILDS: Record<string, Build> = {};
for (const [ta, tb] of [
  [false, false],
  [false, true],
  [true, false],
  [true, true],
] as const) {
  BUILDS[`matmul ${ta ? 'T' : 'N'}${tb ? 'T' : 'N'} 17x33x19`] = (g, _r, p) => {
    const [m, n, k] = [17, 33, 19];
    const a = p(ta ? [k, m] : [m, k]);
    const b = p(tb ? [n, k] : [k, n]);
    return { out: g.matmul(a, b, { transA: ta, transB: tb }) };
  };
}
BUILDS['matmul batched 3x5x7x9'] = (g, _r, p) => ({
  out: g.matmul(p([3, 5, 9]), p([3, 7, 9]), { transB: true }),
});
for (const act of ['none', 'relu', 'tanh', 'gelu', 'sigmoid'] as const) {
  BUILDS[`biasAct ${act} 13x7`] = (g, _r, p) => ({
    out: g.biasAct(p([13, 7], 2), p([7]), act),
    smooth: act !== 'relu',
  });
}
BUILDS['biasAct tanh without bias 5x3'] = (g, _r, p) => ({ out: g.biasAct(p([5, 3]), null, 'tanh') });
for (const log of [false, true]) {
  const name = log ? 'logSoftmax' : 'softmax';
  BUILDS[`${name} masked 6x9`] = (g, rng, p) => {
    const mask = randMask(rng, 6, 9);
    return {
      out: log
        ? g.logSoftmax(p([6, 9], 3), g.input('mask', [6, 9]))
        : g.softmax(p([6, 9], 3), g.input('mask', [6, 9])),
      inputs: { mask },
      weight: mask,
    };
  };
  BUILDS[`${name} row-broadcast mask 6x70`] = (g, rng, p) => {
    const mask = randMask(rng, 3, 70);
    return {
      out: log
        ? g.logSoftmax(p([6, 70], 3), g.input('mask', [3, 70]))
        : g.softmax(p([6, 70], 3), g.input('mask', [3, 70])),
      inputs: { mask },
      weight: Float32Array.from({ length: 6 * 70 }, (_, i) => mask[i % (3 * 70)] as number),
    };
  };
}
BUILDS['softmax unmasked 4x5'] = (g, _r, p) => ({ out: g.softmax(p([4, 5], 2)) });
BUILDS['pick from logSoftmax 7x5'] = (g, rng, p) => ({
  out: g.pick(g.logSoftmax(p([7, 5], 2)), g.input('idx', [7], 'u32')),
  inputs: { idx: randIdx(rng, 7, 5) },
});
for (const op of ['add', 'sub', 'mul'] as const) {
  BUILDS[`${op} 11x3`] = (g, _r, p) => ({ out: g[op](p([11, 3]), p([11, 3])) });
}
BUILDS['scale 9'] = (g, _r, p) => ({ out: g.scale(p([9]), -0.75) });
BUILDS['exp 9'] = (g, _r, p) => ({ out: g.unary('exp', p([9])) });
BUILDS['log of sigmoid 9'] = (g, _r, p) => ({ out: g.unary('log', g.unary('sigmoid', p([9], 3))) });
BUILDS['tanh 9'] = (g, _r, p) => ({ out: g.unary('tanh', p([9], 2)) });
BUILDS['bernoulliLogProb 5x7'] = (g, rng, p) => ({
  out: g.bernoulliLogProb(p([5, 7], 4), g.input('t', [5, 7])),
  inputs: { t: Float32Array.from({ length: 35 }, () => (rng.next() < 0.5 ? 1 : 0)) },
});
BUILDS['gatherRows 5x6 by 9'] = (g, rng, p) => ({
  out: g.gatherRows(p([5, 6]), g.input('idx', [9], 'u32')),
  inputs: { idx: randIdx(rng, 9, 5) },
});
BUILDS['gatherRows 40x3 by 25, rows repeated and rows never read'] = (g, rng, p) => ({
  out: g.gatherRows(p([40, 3]), g.input('idx', [25], 'u32')),
  inputs: { idx: Uint32Array.from({ length: 25 }, (_, i) => (i % 3 === 0 ? 7 : rng.int(12) * 3)) },
});
BUILDS['scatterAddRows 9x6 into 4'] = (g, rng, p) => ({
  out: g.scatterAddRows(p([9, 6]), g.input('idx', [9], 'u32'), 4),
  inputs: { idx: randIdx(rng, 9, 4) },
});
BUILDS['message passing: gather, matmul, scatter 4 nodes'] = (g, rng, p) => {
  const h = p([4, 5]);
  const msg = g.linear(g.gatherRows(h, g.input('src', [7], 'u32')), p([5, 3]), p([3]), 'tanh');
  return {
    out: g.scatterAddRows(msg, g.input('dst', [7], 'u32'), 4),
    inputs: { src: randIdx(rng, 7, 4), dst: randIdx(rng, 7, 4) },
  };
};
// Index patterns for the per-row source lists (webgpu/csr.ts) both scatter and gather's backward
// read: destinations with no source, one destination with many, indices out of order and repeated.
BUILDS['scatterAddRows 40x5 into 9: empty, crowded, unordered and repeated destinations'] = (g, _rng, p) => ({
  out: g.scatterAddRows(p([40, 5]), g.input('idx', [40], 'u32'), 9),
  inputs: {
    // Rows 0 and 8 get nothing; row 4 gets every third source; the rest descend and repeat.
    idx: Uint32Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 4 : 7 - (i % 7))),
  },
});
BUILDS['scatterAddRows 70x2 into 3: every source into one row'] = (g, _rng, p) => ({
  out: g.scatterAddRows(p([70, 2]), g.input('idx', [70], 'u32'), 3),
  inputs: { idx: new Uint32Array(70).fill(1) },
});
BUILDS['gatherRows 6x4 by 50, descending with runs'] = (g, _rng, p) => ({
  out: g.gatherRows(p([6, 4]), g.input('idx', [50], 'u32')),
  inputs: { idx: Uint32Array.from({ length: 50 }, (_, i) => 5 - Math.floor(i / 9)) },
});
BUILDS['one index read by a scatter into 5 rows and a gather from 8 rows'] = (g, rng, p) => {
  const idx = g.input('idx', [13], 'u32');
  const x = g.add(g.gatherRows(p([8, 3]), idx), p([13, 3]));
  return { out: g.scatterAddRows(x, idx, 5), inputs: { idx: randIdx(rng, 13, 5) } };
};
// More rows than one 64-row block of the two-level column sum (WebGPU): γ, β and bias gradients
// sum 3 blocks, then the block sums.
BUILDS['layerNorm 150x5 (column sums over 3 blocks)'] = (g, _r, p) => ({
  out: g.layerNorm(p([150, 5], 2), p([5]), p([5])),
});
BUILDS['biasAct gelu 193x3 (bias gradient over 4 blocks)'] = (g, _r, p) => ({
  out: g.biasAct(p([193, 3]), p([3]), 'gelu'),
});
BUILDS['layerNorm 7x67'] = (g, _r, p) => ({ out: g.layerNorm(p([7, 67], 2), p([67]), p([67])) });
for (const op of ['sum', 'mean', 'max'] as const) {
  BUILDS[`reduce ${op} 5x11`] = (g, _r, p) => ({ out: g.reduce(op, p([5, 11])), smooth: op !== 'max' });
}

BUILDS['causalAttention 2 seqs of 5, d 6, 2 heads'] = (g, _r, p) => ({
  out: g.causalAttention(p([10, 6], 2), p([10, 6], 2), p([10, 6]), { batch: 2, seq: 5, heads: 2 }),
});
BUILDS['causalAttention 1 seq of 7, d 9, 3 heads'] = (g, _r, p) => ({
  out: g.causalAttention(p([7, 9], 2), p([7, 9], 2), p([7, 9]), { batch: 1, seq: 7, heads: 3 }),
});
BUILDS['causalAttention with q = k = v, 3 seqs of 4, d 4, 1 head'] = (g, _r, p) => {
  const x = p([12, 4], 2);
  return { out: g.causalAttention(x, x, x, { batch: 3, seq: 4, heads: 1 }) };
};
BUILDS['causalAttention on projections of one input, 2 seqs of 3, d 8, 4 heads'] = (g, _r, p) => {
  const x = p([6, 5]);
  const [q, k, v] = [0, 1, 2].map(() => g.matmul(x, p([5, 8])));
  return { out: g.causalAttention(q as Tensor, k as Tensor, v as Tensor, { batch: 2, seq: 3, heads: 4 }) };
};
BUILDS['causalAttention with segments (packed examples), 2 seqs of 6, d 4, 2 heads'] = (g, _r, p) => ({
  out: g.causalAttention(p([12, 4], 2), p([12, 4], 2), p([12, 4]), {
    batch: 2,
    seq: 6,
    heads: 2,
    segments: g.input('seg', [12], 'u32'),
  }),
  inputs: { seg: Uint32Array.from([0, 0, 1, 1, 1, 2, 5, 5, 5, 5, 7, 7]) },
});
BUILDS['crossEntropy 7x11, weighted, some weights 0'] = (g, rng, p) => ({
  out: g.crossEntropy(p([7, 11], 3), g.input('t', [7], 'u32'), g.input('w', [7])),
  inputs: {
    t: randIdx(rng, 7, 11),
    w: Float32Array.from({ length: 7 }, (_, i) => (i % 3 === 1 ? 0 : rng.next() + 0.25)),
  },
});
BUILDS['crossEntropy 3x70 with large logits'] = (g, rng, p) => ({
  out: g.crossEntropy(g.scale(p([3, 70], 1), 40), g.input('t', [3], 'u32'), g.input('w', [3])),
  inputs: { t: randIdx(rng, 3, 70), w: Float32Array.from([0.5, 1, 2]) },
});
BUILDS['tied table: gatherRows and matmul transB of one parameter'] = (g, rng, p) => {
  const table = p([6, 5]);
  const h = g.linear(g.gatherRows(table, g.input('ids', [4], 'u32')), p([5, 5]), null, 'tanh');
  return {
    out: g.crossEntropy(g.matmul(h, table, { transB: true }), g.input('t', [4], 'u32'), g.input('w', [4])),
    inputs: { ids: randIdx(rng, 4, 6), t: randIdx(rng, 4, 6), w: Float32Array.from([1, 1, 0.5, 1]) },
  };
};
// PPO clip: ratios exp(logp − old) in about [e^−1, e]; with ε = 0.2 some rows are clipped on
// either side, some weights are 0, advantages of both signs.
const ppoData = (g: Graph, rng: Rng, n: number, ref: boolean) => {
  const v = (name: string): Tensor => g.input(name, [n]);
  const data = { old: v('old'), advantages: v('adv'), weights: v('w'), ...(ref ? { ref: v('ref') } : {}) };
  const inputs: Record<string, Float32Array> = {
    old: uniform(rng, n, 0.5),
    adv: uniform(rng, n, 2),
    w: Float32Array.from({ length: n }, (_, i) => (i % 4 === 3 ? 0 : 0.25 + rng.next())),
  };
  if (ref) inputs.ref = uniform(rng, n, 0.5);
  return { data, inputs };
};
BUILDS['ppoClip 13 rows, clipped both ways, zero weights'] = (g, rng, p) => {
  const { data, inputs } = ppoData(g, rng, 13, false);
  // The clip is a kink: a finite-difference step across 1 ± ε sees half the slope.
  return { out: g.ppoClip(p([13], 0.5), data, 0.2), inputs, smooth: false };
};
BUILDS['ppoClip 70 rows with a KL term to a reference'] = (g, rng, p) => {
  const { data, inputs } = ppoData(g, rng, 70, true);
  return { out: g.ppoClip(p([70], 0.5), data, 0.2, 0.3), inputs, smooth: false };
};

export const CASE_NAMES = Object.keys(BUILDS);

export function buildCase(name: string, rng: Rng): OpCase {
  const build = BUILDS[name];
  if (!build) throw new Error(`no case ${name}`);
  const g = new Graph();
  const params: Tensor[] = [];
  const p = (shape: number[], scale = 1): Tensor => {
    const t = g.param(`p${params.length}`, shape, uniform(rng, size(shape), scale));
    params.push(t);
    return t;
  };
  const built = build(g, rng, p);
  const inputs = { ...(built.inputs ?? {}) };
  const r = g.input('R', built.out.shape);
  const R = uniform(rng, size(built.out.shape), 1);
  if (built.weight) for (let i = 0; i < R.length; i++) R[i] = (R[i] as number) * (built.weight[i] as number);
  inputs.R = R;
  let loss = g.mul(built.out, r);
  while (loss.shape.length > 0) loss = g.sum(loss);
  return { name, graph: g, out: built.out, loss, params, inputs, smooth: built.smooth ?? true };
}

/** max |a − b| / (abs + rel·|b|) ≤ 1 means every element is within tolerance; returns that worst ratio. */
export function worstError(a: Float32Array, b: Float32Array, abs: number, rel: number): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const e = Math.abs((a[i] as number) - (b[i] as number)) / (abs + rel * Math.abs(b[i] as number));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}

/**
 * One embedding table read twice (gatherRows, then the tied output head matmul(h, table, transB))
 * and the same network with the two reads on separate copies of the table: the tied table's
 * gradient must equal the sum of the copies' gradients.
 */
export function tiedTables(rng: Rng): {
  tied: { graph: Graph; loss: Tensor; table: Tensor };
  split: { graph: Graph; loss: Tensor; tables: [Tensor, Tensor] };
  inputs: Record<string, Float32Array | Uint32Array>;
} {
  const [V, D, N] = [7, 5, 6];
  const table = uniform(rng, V * D, 1);
  const w = uniform(rng, D * D, 1);
  const build = (split: boolean): { graph: Graph; loss: Tensor; tables: [Tensor, Tensor] } => {
    const g = new Graph();
    const t0 = g.param('table', [V, D], table);
    const t1 = split ? g.param('table copy', [V, D], table) : t0;
    const h = g.linear(g.gatherRows(t0, g.input('ids', [N], 'u32')), g.param('w', [D, D], w), null, 'tanh');
    const logits = g.matmul(h, t1, { transB: true });
    const loss = g.crossEntropy(logits, g.input('t', [N], 'u32'), g.input('weights', [N]));
    return { graph: g, loss, tables: [t0, t1] };
  };
  const tied = build(false);
  return {
    tied: { graph: tied.graph, loss: tied.loss, table: tied.tables[0] },
    split: build(true),
    inputs: {
      ids: Uint32Array.from([0, 3, 3, 6, 1, 0]),
      t: randIdx(rng, N, V),
      weights: Float32Array.from({ length: N }, () => 1 / N),
    },
  };
}
