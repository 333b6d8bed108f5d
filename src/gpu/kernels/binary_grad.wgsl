// Gradient of y = a op b with respect to one operand (WHICH: 0 = a, 1 = b), accumulated
// (binary_grad_d.wgsl, which kernels.ts prepends):
//   add: g += gy;  sub: g += ±gy;  mul: g += gy · (other operand).
override OP: u32 = 0u;
override WHICH: u32 = 0u;

struct P {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> g: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  g[i] = g[i] + binaryGradD(i, OP, WHICH) * gy[i];
}
