// Two or three input gradients into one tensor's gradient, in one dispatch (plan-grads.ts):
// C += A_p · W_pᵀ for p = 0, 1, …, in that order, A_p [M, K] row-major (the gradient of product p's
// output), W_p [N, K] at element offset off_p of the parameter arena (bound whole as P), C [M, N]
// (the gradient of the products' shared input). Each product's 4x4 block is summed as
// matmul_lanes.wgsl sums its call alone (TRANS_B = 1, batch 1, ACCUMULATE = 1): LK lanes split its
// K, matmul_sum.wgsl's blockSum, tree.wgsl's blockTree; lane 0 then adds it into C before the next
// product's block is summed, so C goes through the same additions in the same order as the calls
// one after another: the same bits. Every invocation runs every product (the barriers of blockTree).

override LK: u32 = 16u;

struct Group {
  m: u32,
  n: u32,
  k: u32,
  count: u32,
  off: vec4u,
}

@group(0) @binding(0) var<uniform> d: Group;
@group(0) @binding(1) var<storage, read> A0: array<f32>;
@group(0) @binding(2) var<storage, read> A1: array<f32>;
@group(0) @binding(3) var<storage, read> A2: array<f32>;
@group(0) @binding(4) var<storage, read> P: array<f32>;
@group(0) @binding(5) var<storage, read_write> C: array<f32>;

// The product being summed (the same for all invocations at any time).
var<private> which: u32;

fn readA(i: u32) -> f32 {
  if (which == 0u) {
    return A0[i];
  }
  if (which == 1u) {
    return A1[i];
  }
  return A2[i];
}

fn readB(i: u32) -> f32 {
  return P[i];
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3u, place: Place) {
  if (d.m == 0u || d.n == 0u) {
    return;
  }
  let M = d.m;
  let N = d.n;
  let K = d.k;
  let t = position(place);
  let lane = t % LK;
  let bn = (N + 3u) / 4u;
  let block = wid.x * (64u / LK) + t / LK;
  let valid = block < ((M + 3u) / 4u) * bn;
  let row0 = min((block / bn) * 4u, M - 1u);
  let col0 = min((block % bn) * 4u, N - 1u);
  // matmul_block.wgsl's operands() with TRANS_B = 1 and no batches: op(B)[kk, col] = W[col·K + kk].
  let lastRow = M - 1u;
  let lastCol = N - 1u;
  let a = vec4u(row0 * K, min(row0 + 1u, lastRow) * K, min(row0 + 2u, lastRow) * K, min(row0 + 3u, lastRow) * K);
  let r0 = (block / bn) * 4u;
  let c0 = (block % bn) * 4u;
  for (var p = 0u; p < d.count; p++) {
    which = p;
    let o = d.off[p];
    let b = vec4u(o + col0 * K, o + min(col0 + 1u, lastCol) * K, o + min(col0 + 2u, lastCol) * K, o + min(col0 + 3u, lastCol) * K);
    let acc = blockTree(t, lane, LK, blockSum(Operands(a, b, 1u, 1u), lane, K, LK));
    if (lane == 0u && valid) {
      for (var i = 0u; i < 4u; i++) {
        let row = r0 + i;
        if (row < M) {
          for (var j = 0u; j < 4u; j++) {
            let col = c0 + j;
            if (col < N) {
              let at = row * N + col;
              C[at] = C[at] + acc[i][j];
            }
          }
        }
      }
    }
  }
}
