// A row gather, the add or sub that reads it, and the bias_act that reads their result, in one
// dispatch (plan-fuse.ts): gather_rows.wgsl (ACCUMULATE = 0), binary.wgsl, bias_act.wgsl:
//   g[i] = t[idx[i / cols], i % cols]  (0 for an index ≥ rows)      for i < ng
//   y[i] = x[i] op g[i]  (SIDE = 1; g[i] op x[i] when SIDE = 0)      for i < ny
//   out[i] = act(y[i] + bias[i % cols])                            for i < nz
// Every output is written as the separate dispatches write it; a gather does no arithmetic and
// only add and sub come before the bias addition (no product for a compiler to contract into an
// FMA), and each invocation reads back only its own element i: same bits. act() is
// activation.wgsl's, as bias_act.wgsl's is.
override OP: u32 = 0u;
override SIDE: u32 = 1u;

struct P {
  ng: u32,
  ny: u32,
  nz: u32,
  cols: u32,
  rows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> t: array<f32>;
@group(0) @binding(3) var<storage, read> idx: array<u32>;
@group(0) @binding(4) var<storage, read_write> g: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;
@group(0) @binding(6) var<storage, read> bias: array<f32>;
@group(0) @binding(7) var<storage, read_write> out: array<f32>;

fn bin(a: f32, b: f32) -> f32 {
  if (OP == 1u) {
    return a - b;
  }
  return a + b;
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(max(p.ng, p.ny), p.nz)) {
    return;
  }
  var v = 0.0;
  if (i < p.ng) {
    let r = idx[i / p.cols];
    if (r < p.rows) {
      v = t[r * p.cols + i % p.cols];
    }
    g[i] = v;
  } else if (i < p.ny) {
    v = g[i];
  }
  var m = 0.0;
  if (i < p.ny) {
    if (SIDE == 1u) {
      m = bin(x[i], v);
    } else {
      m = bin(v, x[i]);
    }
    y[i] = m;
  } else if (i < p.nz) {
    m = y[i];
  }
  if (i < p.nz) {
    out[i] = act(m + bias[i % p.cols]);
  }
}
