/**
 * The transcendental activations four lanes at a time in f32: exp by range reduction and a
 * degree-6 polynomial, tanh by an odd polynomial below |x| = 0.625 and 1 − 2/(e^{2|x|} + 1) above
 * (the coefficients and split points of Cephes' expf and tanhf). GELU is computed as z·σ(2u),
 * which equals the reference's 0.5·z·(1 + tanh u) but does not cancel for negative z, and tanh′ as
 * 4e/(1 + e)² with e = e^{−2|z|}, which does not cancel for large |z|. Each is within a few f32
 * ulps of the correctly rounded value (kernels.test.ts holds them to the TypeScript reference,
 * which rounds an f64 Math.tanh / Math.exp once). A tail shorter than four lanes goes through the
 * same functions in lane 0, so a value's result does not depend on where it sits in a row.
 */

const LOG2E: f32 = 1.44269504088896341;
const LN2_HI: f32 = 0.693359375;
const LN2_LO: f32 = -2.12194440e-4;
/** Below this exp would leave the normal range; above it 2ⁿ overflows the exponent field. */
const EXP_LO: f32 = -87.0;
const EXP_HI: f32 = 88.0;
/** Beyond |x| = 9.02 tanh rounds to ±1 in f32; 44 keeps e^{2|x|} finite. */
const TANH_CLAMP: f32 = 44.0;
const TANH_SPLIT: f32 = 0.625;
const GELU_C: f32 = 0.7978845608028654; // sqrt(2/π)
const GELU_A: f32 = 0.044715;

/** e^x per lane (x clamped to [−87, 88]). */
// @ts-ignore: decorator
@inline
export function exp4(x: v128): v128 {
  x = f32x4.min(f32x4.max(x, f32x4.splat(EXP_LO)), f32x4.splat(EXP_HI));
  const n = f32x4.floor(f32x4.add(f32x4.mul(x, f32x4.splat(LOG2E)), f32x4.splat(0.5)));
  const r = f32x4.sub(f32x4.sub(x, f32x4.mul(n, f32x4.splat(LN2_HI))), f32x4.mul(n, f32x4.splat(LN2_LO)));
  let p = f32x4.splat(1.98756915e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.39819995e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.33345191e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.16657959e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.66666655e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.00000012e-1));
  const y = f32x4.add(f32x4.add(f32x4.mul(p, f32x4.mul(r, r)), r), f32x4.splat(1));
  const pow2 = i32x4.shl(i32x4.add(i32x4.trunc_sat_f32x4_s(n), i32x4.splat(127)), 23);
  return f32x4.mul(y, pow2);
}

/** tanh per lane. */
// @ts-ignore: decorator
@inline
export function tanh4(x: v128): v128 {
  const a = f32x4.abs(x);
  // |x| < 0.625: x + x·z·P(z), z = x².
  const z = f32x4.mul(x, x);
  let p = f32x4.splat(-5.70498872745e-3);
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(2.06390887954e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-5.37397155531e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(1.33314422036e-1));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-3.33332819422e-1));
  const small = f32x4.add(f32x4.mul(f32x4.mul(p, z), x), x);
  // Otherwise 1 − 2/(e^{2|x|} + 1), with x's sign.
  const e = exp4(f32x4.add(f32x4.min(a, f32x4.splat(TANH_CLAMP)), f32x4.min(a, f32x4.splat(TANH_CLAMP))));
  const big = f32x4.sub(f32x4.splat(1), f32x4.div(f32x4.splat(2), f32x4.add(e, f32x4.splat(1))));
  const signed = v128.or(big, v128.and(x, i32x4.splat(0x80000000)));
  return v128.bitselect(small, signed, f32x4.lt(a, f32x4.splat(TANH_SPLIT)));
}

/** act(z) per lane; codes as in elementwise.ts (0 none, 1 relu, 2 tanh, 3 gelu, 4 sigmoid). */
// @ts-ignore: decorator
@inline
export function activate4(z: v128, act: i32): v128 {
  if (act == 1) return f32x4.max(z, f32x4.splat(0));
  if (act == 2) return tanh4(z);
  if (act == 3) return f32x4.mul(z, sigmoid4(f32x4.add(geluU(z), geluU(z))));
  if (act == 4) return sigmoid4(z);
  return z;
}

/** 1 / (1 + e^{−x}) per lane. */
// @ts-ignore: decorator
@inline
function sigmoid4(x: v128): v128 {
  return f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), exp4(f32x4.neg(x))));
}

/** GELU's u = √(2/π)·(z + 0.044715·z³). */
// @ts-ignore: decorator
@inline
function geluU(z: v128): v128 {
  return f32x4.mul(f32x4.splat(GELU_C), f32x4.add(z, f32x4.mul(f32x4.splat(GELU_A), f32x4.mul(z, f32x4.mul(z, z)))));
}

/** act'(z) per lane (relu: 1 where z > 0, else 0). */
// @ts-ignore: decorator
@inline
export function activateGrad4(z: v128, act: i32): v128 {
  const one = f32x4.splat(1);
  if (act == 1) return v128.and(one, f32x4.gt(z, f32x4.splat(0)));
  if (act == 2) {
    // 1 − tanh² z = 4e/(1 + e)², e = e^{−2|z|}.
    const a = f32x4.abs(z);
    const e = exp4(f32x4.neg(f32x4.add(a, a)));
    const d = f32x4.add(one, e);
    return f32x4.div(f32x4.mul(f32x4.splat(4), e), f32x4.mul(d, d));
  }
  if (act == 3) {
    // d/dz z·s(z), s = σ(2u): s + 2z·s·(1 − s)·u′.
    const s = sigmoid4(f32x4.add(geluU(z), geluU(z)));
    const du = f32x4.mul(f32x4.splat(GELU_C), f32x4.add(one, f32x4.mul(f32x4.splat(3 * GELU_A), f32x4.mul(z, z))));
    const zz = f32x4.add(z, z);
    return f32x4.add(s, f32x4.mul(f32x4.mul(f32x4.mul(zz, s), f32x4.sub(one, s)), du));
  }
  if (act == 4) {
    const s = sigmoid4(z);
    return f32x4.mul(s, f32x4.sub(one, s));
  }
  return one;
}

/**
 * Σ_{c<n} e^{x[c] − mx} (in f64, the terms added in order), each term computed in f32 lanes; with
 * `y`, each term is also stored there. A column whose `mask` value is not above 0.5 (mask 0 = all
 * allowed; `mask` is read at the same offsets as x) adds nothing and its y is left alone.
 */
export function expSum(x: usize, mask: usize, y: usize, mx: f32, n: i32): f64 {
  const mxv = f32x4.splat(mx);
  const half = f32x4.splat(0.5);
  let s: f64 = 0;
  let c = 0;
  for (; c + 3 < n; c += 4) {
    const o = (<usize>c) << 2;
    let e = exp4(f32x4.sub(v128.load(x + o), mxv));
    if (mask != 0) {
      const keep = f32x4.gt(v128.load(mask + o), half);
      e = v128.and(e, keep);
      if (y != 0) v128.store(y + o, v128.bitselect(e, v128.load(y + o), keep));
    } else if (y != 0) v128.store(y + o, e);
    s +=
      <f64>f32x4.extract_lane(e, 0) +
      <f64>f32x4.extract_lane(e, 1) +
      <f64>f32x4.extract_lane(e, 2) +
      <f64>f32x4.extract_lane(e, 3);
  }
  for (; c < n; c++) {
    const o = (<usize>c) << 2;
    if (mask != 0 && !(load<f32>(mask + o) > 0.5)) continue;
    const e = f32x4.extract_lane(exp4(f32x4.splat(load<f32>(x + o) - mx)), 0);
    if (y != 0) store<f32>(y + o, e);
    s += <f64>e;
  }
  return s;
}
