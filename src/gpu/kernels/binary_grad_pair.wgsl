// Both gradients of y = a op b in one dispatch (plan-fuse.ts): what binary_grad.wgsl does with
// WHICH = 0 and then WHICH = 1, each with its own length (live rows, live.ts):
//   ga[i] += d_a · gy[i] for i < n_a;  gb[i] += d_b · gy[i] for i < n_b
// with d_a = 1 (add, sub) or b[i] (mul), d_b = 1 (add), −1 (sub) or a[i] (mul): the expression
// of binary_grad.wgsl, once per operand, so the same bits. ga and gb are different buffers.
override OP: u32 = 0u;

struct P {
  na: u32,
  nb: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> ga: array<f32>;
@group(0) @binding(5) var<storage, read_write> gb: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i < p.na) {
    var d = 1.0;
    if (OP == 2u) {
      d = b[i];
    }
    ga[i] = ga[i] + d * gy[i];
  }
  if (i < p.nb) {
    var d = 1.0;
    if (OP == 1u) {
      d = -1.0;
    }
    if (OP == 2u) {
      d = a[i];
    }
    gb[i] = gb[i] + d * gy[i];
  }
}
