// One or two add / sub ops and the bias_act that reads their result, in one dispatch
// (plan-fuse.ts): binary.wgsl, binary.wgsl again when CHAIN = 2 (m1 as its operand a when
// SIDE2 = 0, b when SIDE2 = 1), then bias_act.wgsl:
//   m1[i] = x0[i] op1 x1[i]                        for i < n1
//   m2[i] = m1[i] op2 x2[i]  (or x2[i] op2 m1[i])  for i < n2   (CHAIN = 2)
//   y[i]  = act(m[i] + bias[i % cols])             for i < n3   (m = m1 or m2)
// Every intermediate is written as the separate dispatches write it. Only add and sub are fused
// here (the planner checks): no product meets a later addition, which a shader compiler could
// contract into one fused multiply-add with other bits. Each invocation reads back only its own
// element i: same bits. act() is activation.wgsl's, as bias_act.wgsl's is.
override CHAIN: u32 = 1u;
override OP1: u32 = 0u;
override OP2: u32 = 0u;
override SIDE2: u32 = 0u;

struct P {
  n1: u32,
  n2: u32,
  n3: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x0: array<f32>;
@group(0) @binding(2) var<storage, read> x1: array<f32>;
@group(0) @binding(3) var<storage, read_write> m1: array<f32>;
@group(0) @binding(4) var<storage, read> x2: array<f32>;
@group(0) @binding(5) var<storage, read_write> m2: array<f32>;
@group(0) @binding(6) var<storage, read> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> y: array<f32>;

fn bin(op: u32, a: f32, b: f32) -> f32 {
  if (op == 1u) {
    return a - b;
  }
  return a + b;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(max(p.n1, p.n2), p.n3)) {
    return;
  }
  var m = 0.0;
  if (i < p.n1) {
    m = bin(OP1, x0[i], x1[i]);
    m1[i] = m;
  } else {
    m = m1[i];
  }
  if (CHAIN == 2u) {
    if (i < p.n2) {
      if (SIDE2 == 1u) {
        m = bin(OP2, x2[i], m);
      } else {
        m = bin(OP2, m, x2[i]);
      }
      m2[i] = m;
    } else {
      m = m2[i];
    }
  }
  if (i < p.n3) {
    y[i] = act(m + bias[i % p.cols]);
  }
}
