// y[i] = act(x[i] + bias[i % cols]) over a row-major [rows, cols] tensor of n = rows·cols floats.
// bias is [cols] (a zero buffer when the layer has none). act() and the ACT override come from
// activation.wgsl, prepended to this source (webgpu/kernels.ts).

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  y[i] = act(x[i] + bias[i % p.cols]);
}
