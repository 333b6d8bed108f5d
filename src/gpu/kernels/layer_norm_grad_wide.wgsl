// layer_norm_grad.wgsl with one workgroup of 64 invocations per row (layer_norm_wide.wgsl's plan):
// invocation t takes columns t, t + 64, …, and the row's two sums, Σd and Σd·x̂, meet in tree.wgsl's
// fixed tree. gxh = gy·x̂ is written as before, for col_sum.wgsl; gx += rstd·(d − mean(d) −
// x̂·mean(d·x̂)) when WRITE_GX = 1. The sums' order differs from the CPU's serial one: held to the
// CPU backend at the tolerance of the gradient tests (webgpu/wide-rows.test.ts). Its sizes and
// bindings are layer_norm_grad_io.wgsl's (kernels.ts prepends it).
const WG: u32 = 64u;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, place: Place) {
  let r = wid.x + wid.y * nwg.x;
  if (r >= p.rows) {
    return;
  }
  let t = position(place);
  let o = r * p.cols;
  let mean = stats[2u * r];
  let rstd = stats[2u * r + 1u];
  var sd = 0.0;
  var sdx = 0.0;
  for (var c = t; c < p.cols; c += WG) {
    let xh = (x[o + c] - mean) * rstd;
    let d = gy[o + c] * gamma[c];
    sd += d;
    sdx += d * xh;
    gxh[o + c] = gy[o + c] * xh;
  }
  if (WRITE_GX == 1u) {
    // The first tree's sum is read by every invocation before the second overwrites it.
    _ = treeFold(t, sd, WG, false);
    let n = f32(p.cols);
    let md = treeF32[0] / n;
    workgroupBarrier();
    _ = treeFold(t, sdx, WG, false);
    let mdx = treeF32[0] / n;
    for (var c = t; c < p.cols; c += WG) {
      let xh = (x[o + c] - mean) * rstd;
      let d = gy[o + c] * gamma[c];
      gx[o + c] = gx[o + c] + rstd * (d - md - xh * mdx);
    }
  }
}
