// First pass of a split-K product (matmul_splitk_sum.wgsl is the second): for a product with a
// small output and a long K (weight gradients op(A)ᵀ·dC with K = the live rows), the 32x32 kernel
// (matmul.wgsl) would run a handful of workgroups, each looping over all of K alone. Here K is cut
// into chunks of CHUNK = 64 consecutive k (short chains of dependent loads: on a real GPU a chunk of
// 256 left each of the few workgroups waiting on memory 256 times in a row) and workgroup (x, y, z) computes the 32x32 tile (x, y) of
// chunk z: partial[z][row][col] = Σ op(A)[row, k]·op(B)[k, col] over the k of chunk z, summed in
// increasing k from 0 exactly as matmul.wgsl does (4x4 per invocation, 8x8 invocations, no
// workgroup memory, no branch in the inner loop). Layouts and TRANS_A / TRANS_B as in matmul.wgsl;
// batch is 1. d.k is the live K: the plan sizes `partial` for the padded K and dispatches
// ⌈live K / CHUNK⌉ chunks (live.ts).
//
// Precision: the sum of one element is Σ_chunks (Σ_{k in chunk} a·b) in f32 instead of the single
// run over k of matmul.wgsl and the CPU backend. With one chunk (K ≤ 64) the bits are matmul.wgsl's;
// beyond, the last bits differ. Held to the CPU backend at |Δ| ≤ 2⁻²²·√K·Σ_k|a·b| (+ 2⁻²³·|C|
// with ACCUMULATE): see docs/compute-core.md and splitk.test.ts.
override TRANS_A: u32 = 0u;
override TRANS_B: u32 = 0u;
const CHUNK: u32 = 64u;

struct Dims {
  m: u32,
  n: u32,
  k: u32,
  batch: u32,
}

@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

fn store(base: u32, row: u32, col0: u32, acc: vec4f) {
  if (row >= d.m) {
    return;
  }
  for (var j = 0u; j < 4u; j++) {
    let col = col0 + j;
    if (col < d.n) {
      partial[base + row * d.n + col] = acc[j];
    }
  }
}

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  let chunk = gid.z;
  let k0 = chunk * CHUNK;
  if (row0 >= d.m || col0 >= d.n || k0 >= d.k) {
    return;
  }
  let k1 = min(d.k, k0 + CHUNK);
  var sar = d.k;
  var sak = 1u;
  if (TRANS_A == 1u) {
    sar = 1u;
    sak = d.m;
  }
  var sbk = d.n;
  var sbc = 1u;
  if (TRANS_B == 1u) {
    sbk = 1u;
    sbc = d.k;
  }
  let lastRow = d.m - 1u;
  let lastCol = d.n - 1u;
  let a0 = row0 * sar;
  let a1 = min(row0 + 1u, lastRow) * sar;
  let a2 = min(row0 + 2u, lastRow) * sar;
  let a3 = min(row0 + 3u, lastRow) * sar;
  let b0 = col0 * sbc;
  let b1 = min(col0 + 1u, lastCol) * sbc;
  let b2 = min(col0 + 2u, lastCol) * sbc;
  let b3 = min(col0 + 3u, lastCol) * sbc;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var kk = k0; kk < k1; kk++) {
    let ka = kk * sak;
    let kb = kk * sbk;
    let bv = vec4f(B[b0 + kb], B[b1 + kb], B[b2 + kb], B[b3 + kb]);
    acc0 += A[a0 + ka] * bv;
    acc1 += A[a1 + ka] * bv;
    acc2 += A[a2 + ka] * bv;
    acc3 += A[a3 + ka] * bv;
  }
  let base = chunk * d.m * d.n;
  store(base, row0, col0, acc0);
  store(base, row0 + 1u, col0, acc1);
  store(base, row0 + 2u, col0, acc2);
  store(base, row0 + 3u, col0, acc3);
}
