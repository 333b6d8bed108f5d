// Backward of unary.wgsl, accumulated: gx += gy · f'(x), with f' written through y = f(x):
//   scale: alpha; exp: y; log: 1/x; sigmoid: y(1−y); tanh: 1−y².
override OP: u32 = 0u;

struct P {
  n: u32,
  alpha: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  gx[i] = gx[i] + unaryGradD(i, OP, p.alpha) * gy[i];
}
