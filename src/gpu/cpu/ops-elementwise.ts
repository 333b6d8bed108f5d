/**
 * The CPU backend's element-wise kernels (part of cpu/ops.ts's kernels), each beside its backward:
 * activations and bias, softmax, pick, binary and unary ops, the Bernoulli log-probability.
 * Backward functions accumulate (g += ...).
 */
import type { Activation, BinaryOp, UnaryOp } from '../graph.ts';
import { MASKED_LOG_PROB } from '../graph.ts';

type F32 = Float32Array;
type Idx = Uint32Array;

/** sqrt(2/π), the constant of the tanh approximation of GELU. */
const GELU_C = Math.sqrt(2 / Math.PI);

export function activate(z: number, act: Activation): number {
  switch (act) {
    case 'none':
      return z;
    case 'relu':
      return z > 0 ? z : 0;
    case 'tanh':
      return Math.tanh(z);
    case 'gelu':
      return 0.5 * z * (1 + Math.tanh(GELU_C * (z + 0.044715 * z * z * z)));
    case 'sigmoid':
      return 1 / (1 + Math.exp(-z));
  }
}

/** d act(z) / dz. */
export function activateGrad(z: number, act: Activation): number {
  switch (act) {
    case 'none':
      return 1;
    case 'relu':
      return z > 0 ? 1 : 0;
    case 'tanh': {
      const t = Math.tanh(z);
      return 1 - t * t;
    }
    case 'gelu': {
      const u = GELU_C * (z + 0.044715 * z * z * z);
      const t = Math.tanh(u);
      return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * z * z);
    }
    case 'sigmoid': {
      const s = 1 / (1 + Math.exp(-z));
      return s * (1 - s);
    }
  }
}

export function biasAct(
  x: F32,
  bias: F32 | null,
  y: F32,
  cols: number,
  act: Activation,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const z = (x[i] as number) + (bias ? (bias[i % cols] as number) : 0);
    y[i] = activate(z, act);
  }
}

/** gx += gy·act'(x + b); gb[c] += Σ_r gy·act'(x + b). */
export function biasActGrad(
  x: F32,
  bias: F32 | null,
  gy: F32,
  gx: F32 | null,
  gb: F32 | null,
  cols: number,
  act: Activation,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const c = i % cols;
    const z = (x[i] as number) + (bias ? (bias[c] as number) : 0);
    const dz = (gy[i] as number) * activateGrad(z, act);
    if (gx) gx[i] = (gx[i] as number) + dz;
    if (gb) gb[c] = (gb[c] as number) + dz;
  }
}

export function softmax(
  x: F32,
  mask: F32 | null,
  maskRows: number,
  y: F32,
  cols: number,
  log: boolean,
  rowsN = x.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let mx = -Infinity;
    for (let c = 0; c < cols; c++) {
      if (mask === null || (mask[mo + c] as number) > 0.5) mx = Math.max(mx, x[o + c] as number);
    }
    let s = 0;
    for (let c = 0; c < cols; c++) {
      if (mask === null || (mask[mo + c] as number) > 0.5) s += Math.exp((x[o + c] as number) - mx);
    }
    const lse = Math.log(s);
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) y[o + c] = log ? MASKED_LOG_PROB : 0;
      else y[o + c] = log ? (x[o + c] as number) - mx - lse : Math.exp((x[o + c] as number) - mx) / s;
    }
  }
}

/**
 * log-softmax: gx_i += gy_i − p_i·Σ_j gy_j; softmax: gx_i += y_i·(gy_i − Σ_j gy_j·y_j); sums over
 * allowed entries, masked entries get no gradient.
 */
export function softmaxGrad(
  y: F32,
  gy: F32,
  mask: F32 | null,
  maskRows: number,
  gx: F32,
  cols: number,
  log: boolean,
  rowsN = y.length / cols,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let s = 0;
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) continue;
      s += log ? (gy[o + c] as number) : (gy[o + c] as number) * (y[o + c] as number);
    }
    for (let c = 0; c < cols; c++) {
      if (mask !== null && (mask[mo + c] as number) <= 0.5) continue;
      const yc = y[o + c] as number;
      const g = gy[o + c] as number;
      gx[o + c] = (gx[o + c] as number) + (log ? g - Math.exp(yc) * s : yc * (g - s));
    }
  }
}

export function pick(x: F32, idx: Idx, out: F32, cols: number, count = out.length): void {
  for (let r = 0; r < count; r++) out[r] = x[r * cols + (idx[r] as number)] as number;
}

export function pickGrad(gy: F32, idx: Idx, gx: F32, cols: number, count = gy.length): void {
  for (let r = 0; r < count; r++) {
    const i = r * cols + (idx[r] as number);
    gx[i] = (gx[i] as number) + (gy[r] as number);
  }
}

export function binary(op: BinaryOp, a: F32, b: F32, y: F32, count = y.length): void {
  for (let i = 0; i < count; i++) {
    const u = a[i] as number;
    const v = b[i] as number;
    y[i] = op === 'add' ? u + v : op === 'sub' ? u - v : u * v;
  }
}

/** Gradient of a binary op with respect to operand `which` (0 = a, 1 = b). */
export function binaryGrad(
  op: BinaryOp,
  which: 0 | 1,
  a: F32,
  b: F32,
  gy: F32,
  g: F32,
  count = gy.length,
): void {
  for (let i = 0; i < count; i++) {
    const d =
      op === 'add'
        ? 1
        : op === 'sub'
          ? which === 0
            ? 1
            : -1
          : which === 0
            ? (b[i] as number)
            : (a[i] as number);
    g[i] = (g[i] as number) + d * (gy[i] as number);
  }
}

export function unaryValue(op: UnaryOp, x: number, alpha: number): number {
  switch (op) {
    case 'scale':
      return alpha * x;
    case 'exp':
      return Math.exp(x);
    case 'log':
      return Math.log(x);
    case 'sigmoid':
      return 1 / (1 + Math.exp(-x));
    case 'tanh':
      return Math.tanh(x);
  }
}

export function unary(op: UnaryOp, x: F32, y: F32, alpha: number, count = x.length): void {
  for (let i = 0; i < count; i++) y[i] = unaryValue(op, x[i] as number, alpha);
}

/** gx += gy·f'(x), written with y = f(x) where that is cheaper. */
export function unaryGrad(
  op: UnaryOp,
  x: F32,
  y: F32,
  gy: F32,
  gx: F32,
  alpha: number,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const xi = x[i] as number;
    const yi = y[i] as number;
    const d =
      op === 'scale'
        ? alpha
        : op === 'exp'
          ? yi
          : op === 'log'
            ? 1 / xi
            : op === 'sigmoid'
              ? yi * (1 - yi)
              : 1 - yi * yi;
    gx[i] = (gx[i] as number) + d * (gy[i] as number);
  }
}

/** softplus(x) = log(1 + e^x), computed without overflow as max(x, 0) + log1p(e^−|x|). */
export function softplus(x: number): number {
  return Math.max(x, 0) + Math.log1p(Math.exp(-Math.abs(x)));
}

export function bernoulliLogProb(x: F32, t: F32, y: F32, count = x.length): void {
  for (let i = 0; i < count; i++) y[i] = (t[i] as number) * (x[i] as number) - softplus(x[i] as number);
}

/** d/dx [t·x − softplus(x)] = t − σ(x); d/dt = x (targets are usually data, but the graph allows it). */
export function bernoulliLogProbGrad(
  x: F32,
  t: F32,
  gy: F32,
  gx: F32 | null,
  gt: F32 | null,
  count = x.length,
): void {
  for (let i = 0; i < count; i++) {
    const xi = x[i] as number;
    const g = gy[i] as number;
    if (gx) gx[i] = (gx[i] as number) + g * ((t[i] as number) - 1 / (1 + Math.exp(-xi)));
    if (gt) gt[i] = (gt[i] as number) + g * xi;
  }
}
