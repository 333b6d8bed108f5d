// Shared by matmul_siblings.wgsl and matmul_wgrads.wgsl (kernels.ts prepends it): two or three
// lanes products in one dispatch, each with its own run of workgroups (product p has workgroups
// ends[p − 1] … ends[p] − 1) laid out as matmul_lanes.wgsl lays out its call alone: LK lanes per
// 4x4 block of its output [m, n_p], 64 / LK blocks per workgroup. A workgroup belongs to one
// product, so every invocation of it reaches every barrier. The kernel declares the uniform `d`
// (a `Members`) and `put(p, i, v)`, which stores element i of product p's output.

struct Members {
  m: u32,
  k: u32,
  count: u32,
  unused: u32,
  n: vec4u,
  off: vec4u,
  ends: vec4u,
}

// Where invocation t of workgroup w works: its product p (n its columns), its lane, its block
// (valid: inside the output) and the block's first row and column, clamped to the output.
struct Member {
  p: u32,
  n: u32,
  lane: u32,
  block: u32,
  valid: bool,
  row0: u32,
  col0: u32,
}

fn member(w: u32, t: u32) -> Member {
  var p = 0u;
  var first = 0u;
  if (w >= d.ends.x) {
    p = 1u;
    first = d.ends.x;
  }
  if (w >= d.ends.y) {
    p = 2u;
    first = d.ends.y;
  }
  let n = d.n[p];
  let bn = (n + 3u) / 4u;
  let block = (w - first) * (64u / LK) + t / LK;
  return Member(
    p,
    n,
    t % LK,
    block,
    block < ((d.m + 3u) / 4u) * bn,
    min((block / bn) * 4u, d.m - 1u),
    min((block % bn) * 4u, n - 1u),
  );
}

// Lane 0 of a valid block puts the block's elements that lie inside the output.
fn putBlock(e: Member, acc: array<vec4f, 4>) {
  if (e.lane != 0u || !e.valid) {
    return;
  }
  let bn = (e.n + 3u) / 4u;
  let r0 = (e.block / bn) * 4u;
  let c0 = (e.block % bn) * 4u;
  for (var i = 0u; i < 4u; i++) {
    let row = r0 + i;
    if (row < d.m) {
      for (var j = 0u; j < 4u; j++) {
        let col = c0 + j;
        if (col < e.n) {
          put(e.p, row * e.n + col, acc[i][j]);
        }
      }
    }
  }
}
