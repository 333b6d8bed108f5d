// First pass of a split-K product on 64x64 tiles (matmul_splitk_sum.wgsl is the second): for an
// output of a few dozen 64x64 tiles and a long K (a GPT-2-style step's weight gradients,
// op(A)ᵀ·dC over thousands of tokens), matmul_tiled.wgsl would run fewer workgroups than a large
// GPU has multiprocessors, each looping over all of K. Here workgroup (x, y, z) computes tile
// (x, y) of chunk z, k in [z·d.chunk, min(K, (z + 1)·d.chunk)), exactly as matmul_tiled.wgsl
// computes a whole product (same staging, same order: increasing k from 0), and writes it to
// partial[z][row][col]. d.chunk is a multiple of 64, so matmul_splitk_sum.wgsl, given
// k = chunks·64, adds the chunks in increasing z. Batch is 1.
// Precision: as matmul_splitk.wgsl (one chunk: matmul_tiled.wgsl's bits; more: the last bits
// differ, held to the CPU backend at |Δ| ≤ 2⁻²²·√K·Σ_k|a·b|).
override TRANS_A: u32 = 0u;
override TRANS_B: u32 = 0u;

const TILE: u32 = 64u;
const TK: u32 = 16u;

struct Dims {
  m: u32,
  n: u32,
  k: u32,
  chunk: u32,
}

@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> partial: array<f32>;

// As[kk * TILE + r] = op(A)[row0 + r, k0 + kk]; Bs[kk * TILE + c] = op(B)[k0 + kk, col0 + c].
var<workgroup> As: array<f32, 1024>;
var<workgroup> Bs: array<f32, 1024>;

fn store(base: u32, row: u32, col0: u32, acc: vec4f) {
  if (row >= d.m) {
    return;
  }
  for (var j = 0u; j < 4u; j++) {
    let col = col0 + j * 16u;
    if (col < d.n) {
      partial[base + row * d.n + col] = acc[j];
    }
  }
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let tx = lid.x;
  let ty = lid.y;
  let t = ty * 16u + tx;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  let kBegin = wid.z * d.chunk;
  let kEnd = min(d.k, kBegin + d.chunk);
  let aBase = 0u;
  let bBase = 0u;
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
  store(cBase, row0 + ty, col0 + tx, acc0);
  store(cBase, row0 + ty + 16u, col0 + tx, acc1);
  store(cBase, row0 + ty + 32u, col0 + tx, acc2);
  store(cBase, row0 + ty + 48u, col0 + tx, acc3);
}
