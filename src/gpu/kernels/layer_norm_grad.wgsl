// Backward of layer_norm.wgsl, one invocation per row. With x̂ = (x − mean)·rstd and d = gy·gamma:
// gx += rstd·(d − mean(d) − x̂·mean(d·x̂)) when WRITE_GX = 1, and gxh = gy·x̂ (row-major
// [rows, cols]) for col_sum.wgsl to reduce into the gamma gradient. Its override, sizes and bindings
// are layer_norm_grad_io.wgsl's (kernels.ts prepends it).

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
    return;
  }
  let o = r * p.cols;
  let mean = stats[2u * r];
  let rstd = stats[2u * r + 1u];
  var sd = 0.0;
  var sdx = 0.0;
  for (var c = 0u; c < p.cols; c++) {
    let xh = (x[o + c] - mean) * rstd;
    let d = gy[o + c] * gamma[c];
    sd += d;
    sdx += d * xh;
    gxh[o + c] = gy[o + c] * xh;
  }
  let n = f32(p.cols);
  let md = sd / n;
  let mdx = sdx / n;
  if (WRITE_GX == 1u) {
    for (var c = 0u; c < p.cols; c++) {
      let xh = (x[o + c] - mean) * rstd;
      let d = gy[o + c] * gamma[c];
      gx[o + c] = gx[o + c] + rstd * (d - md - xh * mdx);
    }
  }
}
