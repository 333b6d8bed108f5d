// y = (x − mean)·rstd·gamma + beta per row of a row-major [rows, cols] x, rstd = 1/sqrt(var + eps)
// with the biased variance; one invocation per row (see reduce.wgsl for why no workgroup
// reduction). stats is [rows, 2] = (mean, rstd), kept for the backward pass.
struct P {
  rows: u32,
  cols: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<storage, read_write> stats: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
    return;
  }
  let o = r * p.cols;
  let n = f32(p.cols);
  var s = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    s += x[o + c];
  }
  let mean = s / n;
  var sq = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    let d = x[o + c] - mean;
    sq += d * d;
  }
  let rstd = 1.0 / sqrt(sq / n + p.eps);
  for (var c = 0u; c < p.cols; c++) {
    y[o + c] = (x[o + c] - mean) * rstd * gamma[c] + beta[c];
  }
  stats[2u * r] = mean;
  stats[2u * r + 1u] = rstd;
}
