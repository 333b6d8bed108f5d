// y[i] = a[i] op b[i] over n floats (binary_op.wgsl, which kernels.ts prepends). OP: 0 add, 1 sub, 2 mul.
override OP: u32 = 0u;

struct P {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  y[i] = binaryOp(OP, a[i], b[i]);
}
