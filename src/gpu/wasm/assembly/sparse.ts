/**
 * C[i, :] (+)= Σ_{p0 ≤ p < p1} A[i, p]·B[p, :] for m rows (A [m, k], B [k, n], C [m, n], f32,
 * row-major, byte pointers), four columns of A at a time and skipping those four when they are all
 * zero; each C element adds a0·b0, a1·b1, a2·b2, a3·b3 in that order, in f32, four columns of C
 * per lane group (the tail of n in scalar f32, the same operations). The host's shared-prefix product
 * (src/gpu/wasm/kernels.ts) sums each distinct prefix once with p = [0, d) and then every row's
 * remaining columns with p = [d, k) on top: a row gives the same bits whether its prefix was
 * summed for it or copied from another row.
 */

function at(base: usize, i: i32): usize {
  return base + ((<usize>i) << 2);
}

export function sparseRows(
  A: usize,
  B: usize,
  C: usize,
  m: i32,
  n: i32,
  k: i32,
  p0: i32,
  p1: i32,
  accumulate: bool,
): void {
  for (let i = 0; i < m; i++) {
    const a = at(A, i * k);
    const c = at(C, i * n);
    if (!accumulate) memory.fill(c, 0, <usize>n << 2);
    let p = p0;
    for (; p + 3 < p1; p += 4) {
      const a0 = load<f32>(at(a, p));
      const a1 = load<f32>(at(a, p + 1));
      const a2 = load<f32>(at(a, p + 2));
      const a3 = load<f32>(at(a, p + 3));
      if (a0 == 0 && a1 == 0 && a2 == 0 && a3 == 0) continue;
      const b0 = at(B, p * n);
      const b1 = at(B, (p + 1) * n);
      const b2 = at(B, (p + 2) * n);
      const b3 = at(B, (p + 3) * n);
      const v0 = f32x4.splat(a0);
      const v1 = f32x4.splat(a1);
      const v2 = f32x4.splat(a2);
      const v3 = f32x4.splat(a3);
      let j = 0;
      for (; j + 3 < n; j += 4) {
        const o = (<usize>j) << 2;
        let s = v128.load(c + o);
        s = f32x4.add(s, f32x4.mul(v0, v128.load(b0 + o)));
        s = f32x4.add(s, f32x4.mul(v1, v128.load(b1 + o)));
        s = f32x4.add(s, f32x4.mul(v2, v128.load(b2 + o)));
        s = f32x4.add(s, f32x4.mul(v3, v128.load(b3 + o)));
        v128.store(c + o, s);
      }
      for (; j < n; j++) {
        let s = load<f32>(at(c, j));
        s += a0 * load<f32>(at(b0, j));
        s += a1 * load<f32>(at(b1, j));
        s += a2 * load<f32>(at(b2, j));
        s += a3 * load<f32>(at(b3, j));
        store<f32>(at(c, j), s);
      }
    }
    for (; p < p1; p++) {
      const av = load<f32>(at(a, p));
      if (av == 0) continue;
      const b0 = at(B, p * n);
      const v = f32x4.splat(av);
      let j = 0;
      for (; j + 3 < n; j += 4) {
        const o = (<usize>j) << 2;
        v128.store(c + o, f32x4.add(v128.load(c + o), f32x4.mul(v, v128.load(b0 + o))));
      }
      for (; j < n; j++) store<f32>(at(c, j), load<f32>(at(c, j)) + av * load<f32>(at(b0, j)));
    }
  }
}
