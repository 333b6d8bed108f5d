// Two or three weight gradients of products with one left operand, in one dispatch
// (plan-grads.ts): G[off_p …] += Aᵀ · B_p, A [K, M] row-major (the products' shared input x, K its
// rows), B_p [K, n_p] (the gradient of product p's output), the gradient of weight p [M, n_p] at
// element offset off_p of the gradient arena (bound whole as G). Each runs as matmul_lanes.wgsl runs
// its call alone (TRANS_A = 1, batch 1, ACCUMULATE = 1): its own run of workgroups
// (matmul_members.wgsl), the block summed by matmul_sum.wgsl's blockSum, added in tree.wgsl's
// blockTree and added into G, so the same bits.

override LK: u32 = 16u;

@group(0) @binding(0) var<uniform> d: Members;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B0: array<f32>;
@group(0) @binding(3) var<storage, read> B1: array<f32>;
@group(0) @binding(4) var<storage, read> B2: array<f32>;
@group(0) @binding(5) var<storage, read_write> G: array<f32>;

// The product this workgroup sums (the same for all its invocations).
var<private> which: u32;

fn readA(i: u32) -> f32 {
  return A[i];
}

fn readB(i: u32) -> f32 {
  if (which == 0u) {
    return B0[i];
  }
  if (which == 1u) {
    return B1[i];
  }
  return B2[i];
}

fn put(p: u32, i: u32, v: f32) {
  let at = d.off[p] + i;
  G[at] = G[at] + v;
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3u, place: Place) {
  if (d.m == 0u) {
    return;
  }
  let t = position(place);
  let e = member(wid.x, t);
  which = e.p;
  let M = d.m;
  // matmul_block.wgsl's operands() with TRANS_A = 1 and no batches: op(A)[row, kk] = A[kk·M + row].
  let lastRow = M - 1u;
  let lastCol = e.n - 1u;
  let r = e.row0;
  let c = e.col0;
  let a = vec4u(r, min(r + 1u, lastRow), min(r + 2u, lastRow), min(r + 3u, lastRow));
  let b = vec4u(c, min(c + 1u, lastCol), min(c + 2u, lastCol), min(c + 3u, lastCol));
  putBlock(e, blockTree(t, e.lane, LK, blockSum(Operands(a, b, M, e.n), e.lane, d.k, LK)));
}
