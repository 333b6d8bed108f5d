// layer_norm.wgsl with one workgroup of 64 invocations per row, for long rows on a hardware adapter
// (plan-forward.ts, GpuModelOptions.wideRows): one invocation per row leaves most of a GPU idle
// and has neighbouring invocations read floats a row apart. Here the row is the workgroup's index
// in a grid that may be 2-D, invocation t reads columns t, t + 64, … (neighbours read neighbouring
// floats), and each sum meets in tree.wgsl's fixed tree (kernels.ts prepends tree_levels.wgsl and
// tree.wgsl). The mean and the variance add the same terms as layer_norm.wgsl in another order,
// so they differ from the CPU's serial sums in the last bits: held to the CPU backend at the
// tolerance of the layer norm tests (webgpu/wide-rows.test.ts). Its sizes and bindings are
// layer_norm_io.wgsl's (kernels.ts prepends it).
const WG: u32 = 64u;

@compute @workgroup_size(64)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(num_workgroups) nwg: vec3u, place: Place) {
  let r = wid.x + wid.y * nwg.x;
  // The same for every invocation of the workgroup: the trees below stay in uniform control flow.
  if (r >= p.rows) {
    return;
  }
  let t = position(place);
  let o = r * p.cols;
  let n = f32(p.cols);
  var s = 0.0;
  for (var c = t; c < p.cols; c += WG) {
    s += x[o + c];
  }
  // After the tree's last barrier its first position holds the sum, for every invocation to read;
  // the barrier after the read keeps the next tree from overwriting it first.
  _ = treeFold(t, s, WG, false);
  let mean = treeF32[0] / n;
  workgroupBarrier();
  var sq = 0.0;
  for (var c = t; c < p.cols; c += WG) {
    let d = x[o + c] - mean;
    sq += d * d;
  }
  _ = treeFold(t, sq, WG, false);
  let rstd = 1.0 / sqrt(treeF32[0] / n + p.eps);
  for (var c = t; c < p.cols; c += WG) {
    y[o + c] = (x[o + c] - mean) * rstd * gamma[c] + beta[c];
  }
  if (t == 0u) {
    stats[2u * r] = mean;
    stats[2u * r + 1u] = rstd;
  }
}
