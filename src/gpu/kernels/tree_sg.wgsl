// tree.wgsl with subgroup shuffles (kernels.ts prepends `enable subgroups;`, tree_levels.wgsl and
// this file to the kernels' `_sg` twins, used where the device has the `subgroups` feature:
// GpuModelOptions.subgroups). The same trees, so the same bits on any adapter and any subgroup size; only where partners are
// added differs. The levels s ≥ the subgroup size go through workgroup memory with a barrier each,
// as in tree.wgsl; the levels below it are subgroupShuffleXor(x, s): position t adds t ^ s, which
// for t < s is t + s, the partner the tree gives it (a + b = b + a exactly in IEEE arithmetic, so
// both of a pair hold the same bits). A 4x4 block over LK ≤ the subgroup size (32 on NVIDIA and
// Apple GPUs, 32 or 64 on AMD) then waits at one barrier (shuffled(): reading the subgroup size)
// instead of 1 + log2(LK), and a 256-wide fold over subgroups of 32 at 5 instead of 9.
//
// Positions are placed by subgroup, not by local_invocation_index (WGSL leaves its relation to
// subgroup_invocation_id to the implementation): each subgroup takes the next slot of a workgroup
// counter, and position = slot · subgroup_size + subgroup_invocation_id. A tree's partners at
// s < subgroup size are then in one subgroup. A subgroup size that is not a power of two, or is
// over 64, and the SG_MAX override (tests lower it to take each path on one adapter) bound the
// shuffled levels; SG_MAX = 1 is tree.wgsl's workgroup-memory tree alone.
override SG_MAX: u32 = 64u;

struct Place {
  @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) size: u32,
}

var<workgroup> treeSlots: atomic<u32>;
var<workgroup> treeSize: u32;

fn position(place: Place) -> u32 {
  var slot = 0u;
  if (subgroupElect()) {
    slot = atomicAdd(&treeSlots, 1u);
    if (slot == 0u) {
      treeSize = place.size;
    }
  }
  return subgroupBroadcastFirst(slot) * place.size + place.lane;
}

// The width of the levels done by shuffles: a power of two, ≥ 1. Read through workgroupUniformLoad
// (a barrier), which makes it a value that the tree's barriers may depend on.
fn shuffled() -> u32 {
  let size = workgroupUniformLoad(&treeSize);
  if (size <= 64u && (size & (size - 1u)) == 0u) {
    return min(size, SG_MAX);
  }
  return 1u;
}

fn treeFold(t: u32, x: f32, width: u32, useMax: bool) -> f32 {
  let sg = min(shuffled(), width);
  var v = x;
  if (sg < width) {
    v = foldLevels(t, x, width, sg, useMax);
  }
  for (var s = sg / 2u; s > 0u; s = s / 2u) {
    v = treeOp(v, subgroupShuffleXor(v, s), useMax);
  }
  return v;
}

fn blockTree(t: u32, lane: u32, LK: u32, acc: array<vec4f, 4>) -> array<vec4f, 4> {
  let sg = min(shuffled(), LK);
  var a = acc;
  if (sg < LK) {
    a = blockLevels(t, lane, LK, sg, acc);
  }
  for (var s = sg / 2u; s > 0u; s = s / 2u) {
    a[0] = a[0] + subgroupShuffleXor(a[0], s);
    a[1] = a[1] + subgroupShuffleXor(a[1], s);
    a[2] = a[2] + subgroupShuffleXor(a[2], s);
    a[3] = a[3] + subgroupShuffleXor(a[3], s);
  }
  return a;
}
