// Weighted cross-entropy, first pass: per row r of logits [rows, cols], with m the row maximum and
// ls = log Σ_c exp(x[r, c] − m): stats[2r] = m, stats[2r + 1] = ls (kept apart so that a large m does
// not swallow ls in f32) and rowLoss[r] = w[r]·(m − x[r, t[r]] + ls). reduce.wgsl sums rowLoss into
// the scalar loss; the backward reads stats. One invocation per row (see reduce.wgsl).
struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> t: array<u32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> stats: array<f32>;
@group(0) @binding(5) var<storage, read_write> rowLoss: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
    return;
  }
  let o = r * p.cols;
  var mx = -3.0e38;
  for (var c = 0u; c < p.cols; c++) {
    mx = max(mx, x[o + c]);
  }
  var total = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    total += exp(x[o + c] - mx);
  }
  let ls = log(total);
  stats[2u * r] = mx;
  stats[2u * r + 1u] = ls;
  rowLoss[r] = w[r] * (mx - x[o + min(t[r], p.cols - 1u)] + ls);
}
