/**
 * Global L2 norm of the gradient arena and the Adam(W) update, in f64 like the TypeScript reference
 * (src/gpu/optimizer.ts): two lanes at a time, the same operations in the same order per element.
 */

/** Σ g² (sequential, as the reference sums). */
export function sumSquares(g: usize, len: i32): f64 {
  let sq: f64 = 0;
  for (let i = 0; i < len; i++) {
    const x = <f64>load<f32>(g + ((<usize>i) << 2));
    sq += x * x;
  }
  return sq;
}

/** p −= lr·((m/bc1)/(sqrt(v/bc2) + eps) + wd·p) after m, v updates with the clipped gradient g·s. */
export function adam(
  p: usize,
  g: usize,
  m: usize,
  v: usize,
  len: i32,
  s: f64,
  beta1: f64,
  beta2: f64,
  bc1: f64,
  bc2: f64,
  lr: f64,
  eps: f64,
  wd: f64,
): void {
  const b1 = f64x2.splat(beta1);
  const b2 = f64x2.splat(beta2);
  const o1 = f64x2.splat(1 - beta1);
  const o2 = f64x2.splat(1 - beta2);
  const sv = f64x2.splat(s);
  const c1 = f64x2.splat(bc1);
  const c2 = f64x2.splat(bc2);
  const lrv = f64x2.splat(lr);
  const ev = f64x2.splat(eps);
  const wv = f64x2.splat(wd);
  let i = 0;
  for (; i + 1 < len; i += 2) {
    const o = (<usize>i) << 2;
    const gi = f64x2.mul(f64x2.promote_low_f32x4(v128.load64_zero(g + o)), sv);
    const mi = f64x2.add(f64x2.mul(b1, f64x2.promote_low_f32x4(v128.load64_zero(m + o))), f64x2.mul(o1, gi));
    const vi = f64x2.add(
      f64x2.mul(b2, f64x2.promote_low_f32x4(v128.load64_zero(v + o))),
      f64x2.mul(f64x2.mul(o2, gi), gi),
    );
    const mf = f32x4.demote_f64x2_zero(mi);
    const vf = f32x4.demote_f64x2_zero(vi);
    v128.store64_lane(m + o, mf, 0);
    v128.store64_lane(v + o, vf, 0);
    const pi = f64x2.promote_low_f32x4(v128.load64_zero(p + o));
    const step = f64x2.add(
      f64x2.div(f64x2.div(mi, c1), f64x2.add(f64x2.sqrt(f64x2.div(vi, c2)), ev)),
      f64x2.mul(wv, pi),
    );
    v128.store64_lane(p + o, f32x4.demote_f64x2_zero(f64x2.sub(pi, f64x2.mul(lrv, step))), 0);
  }
  for (; i < len; i++) {
    const o = (<usize>i) << 2;
    const gi = <f64>load<f32>(g + o) * s;
    const mi = beta1 * <f64>load<f32>(m + o) + (1 - beta1) * gi;
    const vi = beta2 * <f64>load<f32>(v + o) + (1 - beta2) * gi * gi;
    store<f32>(m + o, <f32>mi);
    store<f32>(v + o, <f32>vi);
    const pi = <f64>load<f32>(p + o);
    store<f32>(p + o, <f32>(pi - lr * (mi / bc1 / (Math.sqrt(vi / bc2) + eps) + wd * pi)));
  }
}
