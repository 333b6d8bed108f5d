// Backward of y = act(x + bias): dz[i] = gy[i] · act'(x[i] + bias[i % cols]); gx[i] += dz[i] when
// WRITE_GX = 1 (gx is a scratch buffer otherwise). dz (row-major [rows, cols]) is kept so that
// col_sum.wgsl can add Σ_rows dz into the bias gradient. actGrad() and the ACT override come from
// activation.wgsl, the bindings and the step from bias_act_grad_io.wgsl, prepended to this source
// (webgpu/kernels.ts).
struct P {
  n: u32,
  cols: u32,
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  biasActGradAt(gid.x + gid.y * nwg.x * 256u);
}
