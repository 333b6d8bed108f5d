// Backward of reduce.wgsl, accumulated, one invocation per element of x (reduce_grad_d.wgsl, which
// kernels.ts prepends):
//   sum: gx += gy[r];  mean: gx += gy[r]/cols;  max: gx += gy[r] where x = y[r] (ties all receive it).
override OP: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
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
  let r = i / p.cols;
  gx[i] = gx[i] + reduceGradD(i, r, p.cols, OP) * gy[r];
}
