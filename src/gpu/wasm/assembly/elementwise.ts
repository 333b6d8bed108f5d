/**
 * Bias + activation and softmax / log-softmax with their gradients: ports of
 * src/gpu/cpu/ops-elementwise.ts. relu and identity run four lanes at a time (f32 addition gives
 * the reference's bits); the transcendental activations and row sums use f64 as the reference does.
 */

// Activation codes, as in src/gpu/wasm/kernels.ts.
const NONE = 0;
const RELU = 1;
const TANH = 2;
const GELU = 3;
const SIGMOID = 4;
const GELU_C: f64 = Math.sqrt(2 / Math.PI);
const MASKED_LOG_PROB: f32 = -1e30;

function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 2);
}

function activate(z: f64, act: i32): f64 {
  if (act == RELU) return z > 0 ? z : 0;
  if (act == TANH) return Math.tanh(z);
  if (act == GELU) return 0.5 * z * (1 + Math.tanh(GELU_C * (z + 0.044715 * z * z * z)));
  if (act == SIGMOID) return 1 / (1 + Math.exp(-z));
  return z;
}

function activateGrad(z: f64, act: i32): f64 {
  if (act == RELU) return z > 0 ? 1 : 0;
  if (act == TANH) {
    const t = Math.tanh(z);
    return 1 - t * t;
  }
  if (act == GELU) {
    const u = GELU_C * (z + 0.044715 * z * z * z);
    const t = Math.tanh(u);
    return 0.5 * (1 + t) + 0.5 * z * (1 - t * t) * GELU_C * (1 + 3 * 0.044715 * z * z);
  }
  if (act == SIGMOID) {
    const s = 1 / (1 + Math.exp(-z));
    return s * (1 - s);
  }
  return 1;
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
  for (let i = 0; i < count; i++) {
    const z = <f64>load<f32>(at(x, i)) + (bias == 0 ? 0 : <f64>load<f32>(at(bias, i % cols)));
    store<f32>(at(y, i), <f32>activate(z, act));
  }
}

/** gx += gy·act'(x + b); gb[c] += Σ_r gy·act'(x + b) (gx, gb 0 = not wanted). */
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
  for (let i = 0; i < count; i++) {
    const c = i % cols;
    const z = <f64>load<f32>(at(x, i)) + (bias == 0 ? 0 : <f64>load<f32>(at(bias, c)));
    const dz = <f64>load<f32>(at(gy, i)) * activateGrad(z, act);
    if (gx != 0) store<f32>(at(gx, i), <f32>(<f64>load<f32>(at(gx, i)) + dz));
    if (gb != 0) store<f32>(at(gb, c), <f32>(<f64>load<f32>(at(gb, c)) + dz));
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
