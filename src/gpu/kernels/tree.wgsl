// Fixed pairwise trees over a workgroup's invocations, in workgroup memory (kernels.ts prepends
// tree_levels.wgsl and this file; tree_sg.wgsl is its twin with subgroup shuffles, the same bits).
// A kernel takes its invocations' positions from `position(place)` (its entry point declares
// `place: Place`) and adds one value per position with treeFold, or one partial 4x4 block per
// position with blockTree. Both trees add (or take the max of) position t and t + s for
// s = width/2, …, 1, so the result is at the tree's first position. Every invocation of the
// workgroup must call them (they hold barriers).

struct Place {
  @builtin(local_invocation_index) index: u32,
}

fn position(place: Place) -> u32 {
  return place.index;
}

// The sum (or with useMax the max) of the `width` (a power of two, ≤ 256) values x of positions
// 0 … width - 1; position 0 gets the result.
fn treeFold(t: u32, x: f32, width: u32, useMax: bool) -> f32 {
  return foldLevels(t, x, width, 1u, useMax);
}

// Sums the partial blocks of each run of LK (a power of two, ≤ 64) consecutive positions of a
// 64-invocation workgroup; lane = t % LK, and lane 0 of each run gets its run's sum.
fn blockTree(t: u32, lane: u32, LK: u32, acc: array<vec4f, 4>) -> array<vec4f, 4> {
  return blockLevels(t, lane, LK, 1u, acc);
}
