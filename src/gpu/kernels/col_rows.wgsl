// A column sum (col_partial.wgsl, then col_sum.wgsl) in one pass, for short columns: one
// invocation per column adds each block of 64 rows from zero in increasing r, and the block sums in
// order from zero, then adds (ACCUMULATE = 1) or stores the total: the two kernels' additions in
// their order, so the same bits. Planned only for at most COL_SHORT_ROWS rows (plan-fuse.ts), so
// no invocation walks a long column alone. Each block's loop, colBlockSum, is col_partial.wgsl's
// (col_block.wgsl, prepended by kernels.ts): four rows loaded before they are added.
override ACCUMULATE: u32 = 1u;
const BLOCK: u32 = 64u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let c = gid.x;
  if (c >= p.cols) {
    return;
  }
  let blocks = (p.rows + BLOCK - 1u) / BLOCK;
  var s = 0.0;
  for (var b = 0u; b < blocks; b++) {
    s += colBlockSum(b * BLOCK, min(p.rows, (b + 1u) * BLOCK), c);
  }
  if (ACCUMULATE == 1u) {
    out[c] = out[c] + s;
  } else {
    out[c] = s;
  }
}
