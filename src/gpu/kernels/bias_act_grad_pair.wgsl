// A bias activation's backward, then both gradients of the add or sub whose output it activated,
// in one dispatch (plan-fuse.ts; the bias gradient's column sums, which read only dz, run after
// it): bias_act_grad.wgsl's element i, which finishes gx, then binary_grad.wgsl's for operand a
// and for operand b reading it (a message-passing layer's sum of its self term and its neighbours'):
//   dz[i] = gy[i] · act'(x[i] + bias[i % cols]); gx[i] += dz[i] (i < n)
//   ga[i] += gx[i] (i < na);  gb[i] += ±gx[i] (i < nb; − for operand b of a sub)
// Each part's expression is its kernel's (bias_act_grad_io.wgsl, sum_grad_d.wgsl, which kernels.ts
// prepends), each keeps its own length (live rows, live.ts), and the pair reads gx only at its own
// element: the bits of the separate dispatches.
override OP: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
  na: u32,
  nb: u32,
}

@group(0) @binding(6) var<storage, read_write> ga: array<f32>;
@group(0) @binding(7) var<storage, read_write> gb: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  biasActGradAt(i);
  if (i < p.na) {
    ga[i] = ga[i] + sumGradD(OP, 0u) * gx[i];
  }
  if (i < p.nb) {
    gb[i] = gb[i] + sumGradD(OP, 1u) * gx[i];
  }
}
