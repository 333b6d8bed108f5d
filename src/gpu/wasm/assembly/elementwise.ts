/**
 * Bias + activation and softmax / log-softmax with their gradients: ports of
 * src/gpu/cpu/ops-elementwise.ts. Bias + activation runs four lanes at a time: relu and identity
 * in f32 give the reference's bits; tanh, GELU and sigmoid use the f32 approximations of
 * activation.ts (within a few ulps). Softmax row sums use f64 as the reference does.
 */
import { activate4, activateGrad4, exp4, expSum } from './activation';

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
    // The terms e^{x − max} (f32 lanes, activation.ts), kept in y for the plain softmax.
    const s = expSum(at(x, o), mask == 0 ? 0 : at(mask, mo), log ? 0 : at(y, o), <f32>mx, cols);
    const lse = Math.log(s);
    for (let c = 0; c < cols; c++) {
      let v: f32;
      if (!allowed(mask, mo, c)) v = log ? MASKED_LOG_PROB : 0;
      else {
        v = <f32>(log ? <f64>load<f32>(at(x, o + c)) - mx - lse : <f64>load<f32>(at(y, o + c)) / s);
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
    if (log) {
      // gx += gy − e^{y}·Σ gy, four lanes at a time in f32 (masked columns left alone).
      const sv = f32x4.splat(<f32>s);
      const half = f32x4.splat(0.5);
      let c = 0;
      for (; c + 3 < cols; c += 4) {
        const d = f32x4.sub(v128.load(at(gy, o + c)), f32x4.mul(exp4(v128.load(at(y, o + c))), sv));
        const sum = f32x4.add(v128.load(at(gx, o + c)), d);
        if (mask == 0) v128.store(at(gx, o + c), sum);
        else {
          const keep = f32x4.gt(v128.load(at(mask, mo + c)), half);
          v128.store(at(gx, o + c), v128.bitselect(sum, v128.load(at(gx, o + c)), keep));
        }
      }
      for (; c < cols; c++) {
        if (!allowed(mask, mo, c)) continue;
        const e = f32x4.extract_lane(exp4(f32x4.splat(load<f32>(at(y, o + c)))), 0);
        store<f32>(at(gx, o + c), load<f32>(at(gx, o + c)) + (load<f32>(at(gy, o + c)) - e * <f32>s));
      }
      continue;
    }
    for (let c = 0; c < cols; c++) {
      if (!allowed(mask, mo, c)) continue;
      const yc = <f64>load<f32>(at(y, o + c));
      const g = <f64>load<f32>(at(gy, o + c));
      store<f32>(at(gx, o + c), <f32>(<f64>load<f32>(at(gx, o + c)) + yc * (g - s)));
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

// Unary op codes, as in src/gpu/wasm/kernels.ts (log is not ported: the host runs the reference).
const U_SCALE = 0;
const U_EXP = 1;
const U_SIGMOID = 2;
const U_TANH = 3;

/** y = f(x) for i < count: exp, sigmoid and tanh in f32 lanes (activation.ts); scale in f64, the reference's bits. */
export function unary(op: i32, x: usize, y: usize, alpha: f64, count: i32): void {
  let i = 0;
  if (op == U_SCALE) {
    const av = f64x2.splat(alpha);
    for (; i + 1 < count; i += 2) {
      const o = (<usize>i) << 2;
      const v = f64x2.mul(av, f64x2.promote_low_f32x4(v128.load64_zero(x + o)));
      v128.store64_lane(y + o, f32x4.demote_f64x2_zero(v), 0);
    }
    for (; i < count; i++) store<f32>(at(y, i), <f32>(alpha * <f64>load<f32>(at(x, i))));
    return;
  }
  const act = op == U_EXP ? -1 : op == U_SIGMOID ? 4 : 2;
  for (; i + 3 < count; i += 4) {
    const v = v128.load(at(x, i));
    v128.store(at(y, i), act < 0 ? exp4(v) : activate4(v, act));
  }
  for (; i < count; i++) {
    const v = f32x4.splat(load<f32>(at(x, i)));
    store<f32>(at(y, i), f32x4.extract_lane(act < 0 ? exp4(v) : activate4(v, act), 0));
  }
}

/**
 * gx += gy·f′(x), from y = f(x) as the reference does (scale: alpha; exp: y; sigmoid: y(1 − y);
 * tanh: 1 − y²), in f64 two lanes at a time in the reference's order: its bits.
 */
export function unaryGrad(op: i32, y: usize, gy: usize, gx: usize, alpha: f64, count: i32): void {
  const one = f64x2.splat(1);
  const av = f64x2.splat(alpha);
  let i = 0;
  for (; i + 1 < count; i += 2) {
    const o = (<usize>i) << 2;
    const yi = f64x2.promote_low_f32x4(v128.load64_zero(y + o));
    let d: v128;
    if (op == U_SCALE) d = av;
    else if (op == U_EXP) d = yi;
    else if (op == U_SIGMOID) d = f64x2.mul(yi, f64x2.sub(one, yi));
    else d = f64x2.sub(one, f64x2.mul(yi, yi));
    const g = f64x2.promote_low_f32x4(v128.load64_zero(gy + o));
    const sum = f64x2.add(f64x2.promote_low_f32x4(v128.load64_zero(gx + o)), f64x2.mul(d, g));
    v128.store64_lane(gx + o, f32x4.demote_f64x2_zero(sum), 0);
  }
  for (; i < count; i++) {
    const yi = <f64>load<f32>(at(y, i));
    let d: f64;
    if (op == U_SCALE) d = alpha;
    else if (op == U_EXP) d = yi;
    else if (op == U_SIGMOID) d = yi * (1 - yi);
    else d = 1 - yi * yi;
    store<f32>(at(gx, i), <f32>(<f64>load<f32>(at(gx, i)) + d * <f64>load<f32>(at(gy, i))));
  }
}
