// A column sum (col_partial.wgsl, then col_sum.wgsl) in one dispatch, one workgroup of 64 per
// column: invocation t sums blocks t, t + 64, … of 64 rows each from zero in increasing r
// (colBlockSum, col_block.wgsl, prepended by kernels.ts) into workgroup memory, then invocation 0
// adds the ⌈rows / 64⌉ block sums in order from zero and adds (ACCUMULATE = 1) or stores the total:
// the two kernels' additions in their order, so the same bits, in one dispatch instead of two.
// Planned for more than COL_SHORT_ROWS and at most COL_BLOCKS_MAX blocks of rows (plan-fuse.ts);
// past that, the two levels run.
override ACCUMULATE: u32 = 1u;
const BLOCK: u32 = 64u;
const MAX_BLOCKS: u32 = 256u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

var<workgroup> part: array<f32, MAX_BLOCKS>;

@compute @workgroup_size(64)
fn main(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) t: u32,
) {
  // The same column for the whole workgroup, so every invocation reaches the barrier or none does.
  let c = wid.x + wid.y * nwg.x;
  if (c >= p.cols) {
    return;
  }
  let blocks = min((p.rows + BLOCK - 1u) / BLOCK, MAX_BLOCKS);
  for (var b = t; b < blocks; b += 64u) {
    part[b] = colBlockSum(b * BLOCK, min(p.rows, (b + 1u) * BLOCK), c);
  }
  workgroupBarrier();
  if (t != 0u) {
    return;
  }
  var s = 0.0;
  for (var b = 0u; b < blocks; b++) {
    s += part[b];
  }
  if (ACCUMULATE == 1u) {
    out[c] = out[c] + s;
  } else {
    out[c] = s;
  }
}
