// A 4x4 block of C summed over a run of k (matmul.wgsl, matmul_lanes.wgsl, matmul_siblings.wgsl,
// matmul_wgrads.wgsl, matmul_xgrads.wgsl; kernels.ts prepends it). It reads op(A) and op(B) through
// the kernel's readA and readB (one binding each, or the binding of the product being summed) at the
// offsets `Operands` gives.

// op(A)[rows of ai, kk] for the offset ka = kk·sak, and op(B)[kk, columns of bi] for kb = kk·sbk.
fn colA(ai: vec4u, ka: u32) -> vec4f {
  return vec4f(readA(ai.x + ka), readA(ai.y + ka), readA(ai.z + ka), readA(ai.w + ka));
}

fn rowB(bi: vec4u, kb: u32) -> vec4f {
  return vec4f(readB(bi.x + kb), readB(bi.y + kb), readB(bi.z + kb), readB(bi.w + kb));
}

// Where a block's operands start: op(A)[row, kk] = A[a[row] + kk·sak], op(B)[kk, col] =
// B[b[col] + kk·sbk]. Rows and columns past the edge read the last one again (in bounds, branch-free).
struct Operands {
  a: vec4u,
  b: vec4u,
  sak: u32,
  sbk: u32,
}

// The block's rows of products summed over k = k0, k0 + step, … < k1, in that order, from zero.
// Four k at a time: the loads of all four first, then the multiply-adds in increasing k, the same
// operations in the same order as one k at a time (the same bits). A real GPU then waits on memory
// once per four k rather than once per k: with one k per iteration a 64-long K took about as long
// as 64 round trips to memory (an NVIDIA H200 profile, docs/benchmarks.md).
fn blockSum(o: Operands, k0: u32, k1: u32, step: u32) -> array<vec4f, 4> {
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  var kk = k0;
  for (; kk + 3u * step < k1; kk += 4u * step) {
    let av0 = colA(o.a, kk * o.sak);
    let bv0 = rowB(o.b, kk * o.sbk);
    let av1 = colA(o.a, (kk + step) * o.sak);
    let bv1 = rowB(o.b, (kk + step) * o.sbk);
    let av2 = colA(o.a, (kk + 2u * step) * o.sak);
    let bv2 = rowB(o.b, (kk + 2u * step) * o.sbk);
    let av3 = colA(o.a, (kk + 3u * step) * o.sak);
    let bv3 = rowB(o.b, (kk + 3u * step) * o.sbk);
    acc0 += av0.x * bv0;
    acc1 += av0.y * bv0;
    acc2 += av0.z * bv0;
    acc3 += av0.w * bv0;
    acc0 += av1.x * bv1;
    acc1 += av1.y * bv1;
    acc2 += av1.z * bv1;
    acc3 += av1.w * bv1;
    acc0 += av2.x * bv2;
    acc1 += av2.y * bv2;
    acc2 += av2.z * bv2;
    acc3 += av2.w * bv2;
    acc0 += av3.x * bv3;
    acc1 += av3.y * bv3;
    acc2 += av3.z * bv3;
    acc3 += av3.w * bv3;
  }
  for (; kk < k1; kk += step) {
    let av = colA(o.a, kk * o.sak);
    let bv = rowB(o.b, kk * o.sbk);
    acc0 += av.x * bv;
    acc1 += av.y * bv;
    acc2 += av.z * bv;
    acc3 += av.w * bv;
  }
  return array<vec4f, 4>(acc0, acc1, acc2, acc3);
}
