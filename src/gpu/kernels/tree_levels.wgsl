// The levels of the fixed pairwise trees that tree.wgsl and tree_sg.wgsl run in workgroup memory
// (kernels.ts prepends it with either). Position t adds (or takes the max of) position t + s for
// s = width/2, …, `last`, with a barrier before the first level and after each; every invocation
// of the workgroup must call them.

var<workgroup> treeF32: array<f32, 256>;

fn treeOp(a: f32, b: f32, useMax: bool) -> f32 {
  return select(a + b, max(a, b), useMax);
}

// Position t's value after the levels s = width/2, …, last of the tree over positions
// 0 … width - 1 (width a power of two, ≤ 256) holding x.
fn foldLevels(t: u32, x: f32, width: u32, last: u32, useMax: bool) -> f32 {
  treeF32[t] = x;
  workgroupBarrier();
  for (var s = width / 2u; s >= last && s > 0u; s = s / 2u) {
    if (t < s) {
      treeF32[t] = treeOp(treeF32[t], treeF32[t + s], useMax);
    }
    workgroupBarrier();
  }
  return treeF32[t];
}

var<workgroup> treeBlock: array<vec4f, 256>;

// The same for a partial 4x4 block per position, over each run of LK (a power of two, ≤ 64)
// consecutive positions of a 64-invocation workgroup; lane = t % LK.
fn blockLevels(t: u32, lane: u32, LK: u32, last: u32, acc: array<vec4f, 4>) -> array<vec4f, 4> {
  let p = 4u * t;
  treeBlock[p] = acc[0];
  treeBlock[p + 1u] = acc[1];
  treeBlock[p + 2u] = acc[2];
  treeBlock[p + 3u] = acc[3];
  workgroupBarrier();
  for (var s = LK / 2u; s >= last && s > 0u; s = s / 2u) {
    if (lane < s) {
      let q = p + 4u * s;
      treeBlock[p] = treeBlock[p] + treeBlock[q];
      treeBlock[p + 1u] = treeBlock[p + 1u] + treeBlock[q + 1u];
      treeBlock[p + 2u] = treeBlock[p + 2u] + treeBlock[q + 2u];
      treeBlock[p + 3u] = treeBlock[p + 3u] + treeBlock[q + 3u];
    }
    workgroupBarrier();
  }
  return array<vec4f, 4>(treeBlock[p], treeBlock[p + 1u], treeBlock[p + 2u], treeBlock[p + 3u]);
}
