// The backward of a reduction, then of the binary op that made its input, in one dispatch
// (plan-fuse.ts): reduce_grad.wgsl's element i, which finishes the gradient gx of the binary's
// output, then binary_grad.wgsl's element i for operand a (GA = 1) and b (GB = 1) reading it:
//   gx[i] += d_r · gy[i / cols] (i < n);  ga[i] += d_a · gx[i] (i < na);  gb[i] += d_b · gx[i] (i < nb)
// Each part's expression is its kernel's (reduce_grad_d.wgsl, binary_grad_d.wgsl, which kernels.ts
// prepends) and keeps its own length (live rows, live.ts), and the binary's gradients read gx only
// at their own element: the bits of the separate dispatches. A disabled gradient is a sink.
override OP: u32 = 0u;
override BOP: u32 = 0u;
override GA: u32 = 1u;
override GB: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
  na: u32,
  nb: u32,
}

@group(0) @binding(0) var<uniform> p: P;
// The reduction's input and output (read by its max's gradient).
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> y: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> gx: array<f32>;
// The binary op's operands and their gradients.
@group(0) @binding(5) var<storage, read> a: array<f32>;
@group(0) @binding(6) var<storage, read> b: array<f32>;
@group(0) @binding(7) var<storage, read_write> ga: array<f32>;
@group(0) @binding(8) var<storage, read_write> gb: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i < p.n) {
    let r = i / p.cols;
    gx[i] = gx[i] + reduceGradD(i, r, p.cols, OP) * gy[r];
  }
  if (GA == 1u && i < p.na) {
    ga[i] = ga[i] + binaryGradD(i, BOP, 0u) * gx[i];
  }
  if (GB == 1u && i < p.nb) {
    gb[i] = gb[i] + binaryGradD(i, BOP, 1u) * gx[i];
  }
}
