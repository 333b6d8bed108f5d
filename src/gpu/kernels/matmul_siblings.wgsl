// Two or three products with one left operand, each by a weight of the parameter arena, in one
// dispatch (plan-siblings.ts): C_p = A · W_p, A [M, K] row-major, W_p [K, n_p] at element offset
// off_p of the arena (bound whole as B), C_p [M, n_p]. Each product runs as matmul_lanes.wgsl runs
// it alone (no transposes, batch 1, no accumulation): its own run of workgroups (product p has
// workgroups ends[p − 1] … ends[p] − 1), LK lanes per 4x4 block of C, the block summed by
// matmul_sum.wgsl's blockSum and added in tree.wgsl's blockTree, so the same bits. A workgroup
// belongs to one product, so every invocation of it reaches every barrier.

override LK: u32 = 16u;

struct Siblings {
  m: u32,
  k: u32,
  count: u32,
  unused: u32,
  n: vec4u,
  off: vec4u,
  ends: vec4u,
}

@group(0) @binding(0) var<uniform> d: Siblings;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C0: array<f32>;
@group(0) @binding(4) var<storage, read_write> C1: array<f32>;
@group(0) @binding(5) var<storage, read_write> C2: array<f32>;

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
  var p = 0u;
  var first = 0u;
  if (wid.x >= d.ends.x) {
    p = 1u;
    first = d.ends.x;
  }
  if (wid.x >= d.ends.y) {
    p = 2u;
    first = d.ends.y;
  }
  let n = d.n[p];
  let K = d.k;
  let t = position(place);
  let lane = t % LK;
  let bn = (n + 3u) / 4u;
  let block = (wid.x - first) * (64u / LK) + t / LK;
  let valid = block < ((d.m + 3u) / 4u) * bn;
  let row0 = min((block / bn) * 4u, d.m - 1u);
  let col0 = min((block % bn) * 4u, n - 1u);
  // matmul_block.wgsl's operands() without transposes or batches, B from the weight's offset.
  let lastRow = d.m - 1u;
  let lastCol = n - 1u;
  let a = vec4u(row0 * K, min(row0 + 1u, lastRow) * K, min(row0 + 2u, lastRow) * K, min(row0 + 3u, lastRow) * K);
  let o = d.off[p];
  let b = vec4u(o + col0, o + min(col0 + 1u, lastCol), o + min(col0 + 2u, lastCol), o + min(col0 + 3u, lastCol));
  let acc = blockTree(t, lane, LK, blockSum(Operands(a, b, 1u, n), lane, K, LK));
  if (lane == 0u && valid) {
    let r0 = (block / bn) * 4u;
    let c0 = (block % bn) * 4u;
    for (var i = 0u; i < 4u; i++) {
      let row = r0 + i;
      if (row < d.m) {
        for (var j = 0u; j < 4u; j++) {
          let col = c0 + j;
          if (col < n) {
            put(p, row * n + col, acc[i][j]);
          }
        }
      }
    }
  }
}
