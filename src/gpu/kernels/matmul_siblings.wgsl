// Two or three products with one left operand, each by a weight of the parameter arena, in one
// dispatch (plan-siblings.ts): C_p = A · W_p, A [M, K] row-major, W_p [K, n_p] at element offset
// off_p of the arena (bound whole as B), C_p [M, n_p]. Each product runs as matmul_lanes.wgsl runs
// it alone (no transposes, batch 1, no accumulation): its own run of workgroups
// (matmul_members.wgsl), the block summed by matmul_sum.wgsl's blockSum and added in tree.wgsl's
// blockTree, so the same bits.

override LK: u32 = 16u;

@group(0) @binding(0) var<uniform> d: Members;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C0: array<f32>;
@group(0) @binding(4) var<storage, read_write> C1: array<f32>;
@group(0) @binding(5) var<storage, read_write> C2: array<f32>;

fn readA(i: u32) -> f32 {
  return A[i];
}

fn readB(i: u32) -> f32 {
  return B[i];
}

fn put(p: u32, i: u32, v: f32) {
  if (p == 0u) {
    C0[i] = v;
  } else if (p == 1u) {
    C1[i] = v;
  } else {
    C2[i] = v;
  }
}

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3u, place: Place) {
  if (d.m == 0u) {
    return;
  }
  let t = position(place);
  let e = member(wid.x, t);
  let K = d.k;
  // matmul_block.wgsl's operands() without transposes or batches, B from the weight's offset.
  let lastRow = d.m - 1u;
  let lastCol = e.n - 1u;
  let r = e.row0;
  let c = e.col0;
  let a = vec4u(r * K, min(r + 1u, lastRow) * K, min(r + 2u, lastRow) * K, min(r + 3u, lastRow) * K);
  let o = d.off[e.p];
  let b = vec4u(o + c, o + min(c + 1u, lastCol), o + min(c + 2u, lastCol), o + min(c + 3u, lastCol));
  putBlock(e, blockTree(t, e.lane, LK, blockSum(Operands(a, b, 1u, e.n), e.lane, K, LK)));
}
