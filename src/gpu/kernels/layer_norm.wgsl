// y = (x − mean)·rstd·gamma + beta per row of a row-major [rows, cols] x, rstd = 1/sqrt(var + eps)
// with the biased variance; one invocation per row (see reduce.wgsl for why no workgroup
// reduction). Its sizes and bindings are layer_norm_io.wgsl's (kernels.ts prepends it).

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
