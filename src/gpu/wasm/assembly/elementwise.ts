/**
 * Bias + activation and softmax / log-softmax with their gradients: ports of
 * src/gpu/cpu/ops-elementwise.ts. Bias + activation runs four lanes at a time: relu and identity
 * in f32 give the reference's bits; tanh, GELU and sigmoid use the f32 approximations of
 * activation.ts (within a few ulps). Softmax row sums use f64 as the reference does.
 */
import { activate4, activateGrad4 } from './activation';

// Activation codes, as in src/gpu/wasm/kernels.ts.
const NONE = 0;
const RELU = 1;
const MASKED_LOG_PROB: f32 = -1e30;

function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 2);
}

/** y = act(x + bias[i % cols]) for i < count; bias 0 = none. */
export function biasAct(x: usize, bias: usize, y: usize, cols: i32, act: i32, count: i32): void {
  if (act == NONE || act == RELU) {
    const rowLen = bias == 0 ? count : cols;
    const zero = f32x4.splat(0);
    for (let o = 0; o < count; o += rowLen) {
      let c = 0;
      for (; c + 3 < rowLen; c += 4) {
        let z = v128.load(at(x, o + c));
        if (bias != 0) z = f32x4.add(z, v128.load(at(bias, c)));
        if (act == RELU) z = f32x4.max(z, zero);
        v128.store(at(y, o + c), z);
      }
      for (; c < rowLen; c++) {
        let z = load<f32>(at(x, o + c));
        if (bias != 0) z += load<f32>(at(bias, c));
        store<f32>(at(y, o + c), act == RELU ? (z > 0 ? z : 0) : z);
      }
    }
    return;
  }
  const rowLen = bias == 0 ? count : cols;
  for (let o = 0; o < count; o += rowLen) {
    const end = min(rowLen, count - o);
    let c = 0;
    for (; c + 3 < end; c += 4) {
      let z = v128.load(at(x, o + c));
      if (bias != 0) z = f32x4.add(z, v128.load(at(bias, c)));
      v128.store(at(y, o + c), activate4(z, act));
    }
    for (; c < end; c++) {
      let z = load<f32>(at(x, o + c));
      if (bias != 0) z += load<f32>(at(bias, c));
      store<f32>(at(y, o + c), f32x4.extract_lane(activate4(f32x4.splat(z), act), 0));
    }
  }
}

/** gx += gy·act'(x + b); gb[c] += Σ_r gy·act'(x + b) (gx, gb 0 = not wanted); four lanes at a time. */
export function biasActGrad(
  x: usize,
  bias: usize,
  gy: usize,
  gx: usize,
  gb: usize,
  cols: i32,
  act: i32,
  count: i32,
): void {
  for (let o = 0; o < count; o += cols) {
    const end = min(cols, count - o);
    let c = 0;
    for (; c + 3 < end; c += 4) {
      let z = v128.load(at(x, o + c));
      if (bias != 0) z = f32x4.add(z, v128.load(at(bias, c)));
      const dz = f32x4.mul(v128.load(at(gy, o + c)), activateGrad4(z, act));
      if (gx != 0) v128.store(at(gx, o + c), f32x4.add(v128.load(at(gx, o + c)), dz));
      if (gb != 0) v128.store(at(gb, c), f32x4.add(v128.load(at(gb, c)), dz));
    }
    for (; c < end; c++) {
      let z = load<f32>(at(x, o + c));
      if (bias != 0) z += load<f32>(at(bias, c));
      const dz = load<f32>(at(gy, o + c)) * f32x4.extract_lane(activateGrad4(f32x4.splat(z), act), 0);
      if (gx != 0) store<f32>(at(gx, o + c), load<f32>(at(gx, o + c)) + dz);
      if (gb != 0) store<f32>(at(gb, c), load<f32>(at(gb, c)) + dz);
    }
  }
}

function allowed(mask: usize, mo: i32, c: i32): bool {
  return mask == 0 || load<f32>(at(mask, mo + c)) > 0.5;
}

export function softmax(
  x: usize,
  mask: usize,
  maskRows: i32,
  y: usize,
  cols: i32,
  log: bool,
  rowsN: i32,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let mx: f64 = -Infinity;
    for (let c = 0; c < cols; c++) if (allowed(mask, mo, c)) mx = Math.max(mx, <f64>load<f32>(at(x, o + c)));
    let s: f64 = 0;
    for (let c = 0; c < cols; c++) if (allowed(mask, mo, c)) s += Math.exp(<f64>load<f32>(at(x, o + c)) - mx);
    const lse = Math.log(s);
    for (let c = 0; c < cols; c++) {
      let v: f32;
      if (!allowed(mask, mo, c)) v = log ? MASKED_LOG_PROB : 0;
      else {
        const xc = <f64>load<f32>(at(x, o + c));
        v = <f32>(log ? xc - mx - lse : Math.exp(xc - mx) / s);
      }
      store<f32>(at(y, o + c), v);
    }
  }
}

export function softmaxGrad(
  y: usize,
  gy: usize,
  mask: usize,
  maskRows: i32,
  gx: usize,
  cols: i32,
  log: bool,
  rowsN: i32,
): void {
  for (let r = 0; r < rowsN; r++) {
    const o = r * cols;
    const mo = (r % maskRows) * cols;
    let s: f64 = 0;
    for (let c = 0; c < cols; c++) {
      if (!allowed(mask, mo, c)) continue;
      const g = <f64>load<f32>(at(gy, o + c));
      s += log ? g : g * <f64>load<f32>(at(y, o + c));
    }
    for (let c = 0; c < cols; c++) {
      if (!allowed(mask, mo, c)) continue;
      const yc = <f64>load<f32>(at(y, o + c));
      const g = <f64>load<f32>(at(gy, o + c));
      const d = log ? g - Math.exp(yc) * s : yc * (g - s);
      store<f32>(at(gx, o + c), <f32>(<f64>load<f32>(at(gx, o + c)) + d));
    }
  }
}

// Binary op codes, as in src/gpu/wasm/kernels.ts.
const SUB = 1;
const MUL = 2;

/** y = a op b element-wise for i < count (add 0, sub 1, mul 2): one f32 operation, the reference's bits. */
export function binary(op: i32, a: usize, b: usize, y: usize, count: i32): void {
  let i = 0;
  for (; i + 3 < count; i += 4) {
    const u = v128.load(at(a, i));
    const v = v128.load(at(b, i));
    v128.store(at(y, i), op == MUL ? f32x4.mul(u, v) : op == SUB ? f32x4.sub(u, v) : f32x4.add(u, v));
  }
  for (; i < count; i++) {
    const u = load<f32>(at(a, i));
    const v = load<f32>(at(b, i));
    store<f32>(at(y, i), op == MUL ? u * v : op == SUB ? u - v : u + v);
  }
}

/**
 * g += ∂(a op b)/∂operand · gy for operand `which` (0 = a, 1 = b). For add and sub the reference's
 * bits; for mul the product is rounded to f32 before the sum (the reference adds the exact f64
 * product), within an ulp.
 */
export function binaryGrad(op: i32, which: i32, a: usize, b: usize, gy: usize, g: usize, count: i32): void {
  const other = which == 0 ? b : a;
  let i = 0;
  for (; i + 3 < count; i += 4) {
    const d = v128.load(at(gy, i));
    const gi = v128.load(at(g, i));
    let r: v128;
    if (op == MUL) r = f32x4.add(gi, f32x4.mul(v128.load(at(other, i)), d));
    else if (op == SUB && which == 1) r = f32x4.sub(gi, d);
    else r = f32x4.add(gi, d);
    v128.store(at(g, i), r);
  }
  for (; i < count; i++) {
    const d = load<f32>(at(gy, i));
    const gi = load<f32>(at(g, i));
    let r: f32;
    if (op == MUL) r = gi + load<f32>(at(other, i)) * d;
    else if (op == SUB && which == 1) r = gi - d;
    else r = gi + d;
    store<f32>(at(g, i), r);
  }
}
