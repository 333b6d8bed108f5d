// First level of a column sum (see col_sum.wgsl): partial[b, c] = Σ x[r·cols + c] over the rows r of
// block b (rows b·64 … b·64 + 63), in increasing r. One invocation per (block, column), so a column
// of 100,000 rows is summed by 1,563 invocations, not one. No barriers (software adapters pay a
// coroutine switch per barrier). The loop, colBlockSum, is in col_block.wgsl (prepended by kernels.ts).
const BLOCK: u32 = 64u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> partial: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  let blocks = (p.rows + BLOCK - 1u) / BLOCK;
  if (o >= blocks * p.cols) {
    return;
  }
  let b = o / p.cols;
  let c = o % p.cols;
  let end = min(p.rows, (b + 1u) * BLOCK);
  partial[o] = colBlockSum(b * BLOCK, end, c);
}
