// C[b] = op(A[b]) · op(B[b]) (C[b] += ... when ACCUMULATE = 1): layouts, bindings and storeStep()
// are in matmul_block.wgsl, prepended by kernels.ts.
// For shapes large enough to fill its tiles on a hardware GPU: a workgroup of 16x16 invocations
// computes a 64x64 tile of C. Per K-tile of 16, the workgroup stages op(A)[64, 16] and op(B)[16, 64]
// in workgroup memory (4 loads per invocation each, along the operand's contiguous axis), then
// each invocation adds 16 k-steps into a 4x4 register block: rows ty + 16i, columns tx + 16j (a
// row of invocations reads 16 neighbouring columns and writes them coalesced).
// Products are summed in increasing k, from zero, one product at a time, and added to C once at
// the end: the order of matmul.wgsl, so both kernels give the same bits. The last K-tile loops
// over its valid k only (no zero padding is multiplied in); rows and columns past the edge load
// zeros whose sums are never stored.
// SPLIT_K = 1 (planned as `matmul_splitk_tiled`, the first pass of a split-K product on 64x64 tiles;
// matmul_splitk_sum.wgsl is the second): for an output of a few dozen tiles and a long K (a
// GPT-2-style step's weight gradients over thousands of tokens), workgroup (x, y, z) computes tile
// (x, y) over chunk z of K, k in [z·d.batch, min(K, (z + 1)·d.batch)), in the order above, into
// C[z] (the chunk scratch; ACCUMULATE = 0). The chunk d.batch is a multiple of 64, so the sum pass,
// given k = chunks·64, adds the chunks in increasing z. Batch is 1. Precision: as matmul.wgsl's
// split-K (one chunk: these bits; more: held to the CPU at |Δ| ≤ 2⁻²²·√K·Σ_k|a·b|).
override SPLIT_K: u32 = 0u;

const TILE: u32 = 64u;
const TK: u32 = 16u;

// As[kk * TILE + r] = op(A)[row0 + r, k0 + kk]; Bs[kk * TILE + c] = op(B)[k0 + kk, col0 + c].
var<workgroup> As: array<f32, 1024>;
var<workgroup> Bs: array<f32, 1024>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let tx = lid.x;
  let ty = lid.y;
  let t = ty * 16u + tx;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  // Split-K: chunk wid.z of K, batch 0. Otherwise: all of K, batch wid.z.
  let split = SPLIT_K == 1u;
  let bt = select(wid.z, 0u, split);
  let kBegin = select(0u, wid.z * d.batch, split);
  let kEnd = select(d.k, min(d.k, kBegin + d.batch), split);
  let aBase = bt * d.m * d.k;
  let bBase = bt * d.k * d.n;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var k0 = kBegin; k0 < kEnd; k0 += TK) {
    for (var i = 0u; i < 4u; i++) {
      let e = t + i * 256u;
      // op(A) tile: along k when A is [M][K], along rows when it is stored [K][M].
      var r = e / TK;
      var kk = e % TK;
      if (TRANS_A == 1u) {
        r = e % TILE;
        kk = e / TILE;
      }
      var av = 0.0;
      if (row0 + r < d.m && k0 + kk < kEnd) {
        if (TRANS_A == 1u) {
          av = A[aBase + (k0 + kk) * d.m + row0 + r];
        } else {
          av = A[aBase + (row0 + r) * d.k + k0 + kk];
        }
      }
      As[kk * TILE + r] = av;
      // op(B) tile: along columns when B is [K][N], along k when it is stored [N][K].
      var c = e % TILE;
      var kb = e / TILE;
      if (TRANS_B == 1u) {
        c = e / TK;
        kb = e % TK;
      }
      var bv = 0.0;
      if (col0 + c < d.n && k0 + kb < kEnd) {
        if (TRANS_B == 1u) {
          bv = B[bBase + (col0 + c) * d.k + k0 + kb];
        } else {
          bv = B[bBase + (k0 + kb) * d.n + col0 + c];
        }
      }
      Bs[kb * TILE + c] = bv;
    }
    workgroupBarrier();
    let kn = min(TK, kEnd - k0);
    for (var kk = 0u; kk < kn; kk++) {
      let o = kk * TILE;
      let bv = vec4f(Bs[o + tx], Bs[o + tx + 16u], Bs[o + tx + 32u], Bs[o + tx + 48u]);
      acc0 += As[o + ty] * bv;
      acc1 += As[o + ty + 16u] * bv;
      acc2 += As[o + ty + 32u] * bv;
      acc3 += As[o + ty + 48u] * bv;
    }
    workgroupBarrier();
  }
  let cBase = wid.z * d.m * d.n;
  storeStep(cBase, row0 + ty, col0 + tx, 16u, acc0);
  storeStep(cBase, row0 + ty + 16u, col0 + tx, 16u, acc1);
  storeStep(cBase, row0 + ty + 32u, col0 + tx, 16u, acc2);
  storeStep(cBase, row0 + ty + 48u, col0 + tx, 16u, acc3);
}
