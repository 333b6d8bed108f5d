// The operand gradients of two add/sub ops where the second op's output is an operand of the first
// (y = (a2 op2 b2) op1 b1, say), in one dispatch (plan-fuse.ts): binary_grad.wgsl four times, in
// the backward order — the first op's two gradients, then the second op's, whose output gradient
// g2 is ga1 (SIDE = 0) or gb1 (SIDE = 1), read back at element i after the first pair wrote it:
//   ga1[i] += gy[i];  gb1[i] += ±gy[i];  ga2[i] += g2[i];  gb2[i] += ±g2[i]
// (− for operand b of a sub), each for i below its own length, with binary_grad.wgsl's expression
// g + d·gy. Each invocation touches only its own element i: the four dispatches' bits.
override OP1: u32 = 0u;
override OP2: u32 = 0u;
override SIDE: u32 = 0u;

struct P {
  na1: u32,
  nb1: u32,
  na2: u32,
  nb2: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> gy: array<f32>;
@group(0) @binding(2) var<storage, read_write> ga1: array<f32>;
@group(0) @binding(3) var<storage, read_write> gb1: array<f32>;
@group(0) @binding(4) var<storage, read_write> ga2: array<f32>;
@group(0) @binding(5) var<storage, read_write> gb2: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(max(p.na1, p.nb1), max(p.na2, p.nb2))) {
    return;
  }
  let one = 1.0;
  if (i < p.na1) {
    ga1[i] = ga1[i] + one * gy[i];
  }
  if (i < p.nb1) {
    let d = select(1.0, -1.0, OP1 == 1u);
    gb1[i] = gb1[i] + d * gy[i];
  }
  var g2 = 0.0;
  if (SIDE == 1u) {
    g2 = gb1[i];
  } else {
    g2 = ga1[i];
  }
  if (i < p.na2) {
    ga2[i] = ga2[i] + one * g2;
  }
  if (i < p.nb2) {
    let d = select(1.0, -1.0, OP2 == 1u);
    gb2[i] = gb2[i] + d * g2;
  }
}
