// layer_norm_grad.wgsl with one workgroup of 64 invocations per row (layer_norm_wide.wgsl's plan):
// invocation t takes columns t, t + 64, …, and the row's two sums, Σd and Σd·x̂, meet in tree.wgsl's
// fixed tree. gxh = gy·x̂ is written as before, for col_sum.wgsl; gx += rstd·(d − mean(d) −
// x̂·mean(d·x̂)) when WRITE_GX = 1. The sums' order differs from the CPU's serial one: held to the
// CPU backend at the tolerance of the gradient tests (webgpu/wide-rows.test.ts).
override WRITE_GX: u32 = 1u;
const WG: u32 = 64u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> stats: array<f32>;
@group(0) @binding(4) var<storage, read> gy: array<f32>;
@group(0) @binding(5) var<storage, read_write> gxh: array<f32>;
@group(0) @binding(6) var<storage, read_write> gx: array<f32>;

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
