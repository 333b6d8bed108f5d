// y[r] = reduce_c x[r·cols + c] over the last axis of a row-major [rows, cols] x. OP: 0 sum,
// 1 mean, 2 max. One invocation per row with a serial loop: policy rows are short (≤ a few hundred
// floats), and kernels without workgroup barriers run far faster on software adapters, where
// every barrier switches coroutines (measured on SwiftShader: two row reductions of a [256, 64]
// tensor took 126 ms with a 64-wide workgroup reduction, 4.3 ms with one invocation per row).
override OP: u32 = 0u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.rows) {
    return;
  }
  let o = r * p.cols;
  var acc = select(0.0, -3.0e38, OP == 2u);
  // Four columns at a time, loads first, then in increasing c (the same bits as one at a time): a
  // real GPU waits on memory once per four (matmul.wgsl).
  var c = 0u;
  for (; c + 4u <= p.cols; c += 4u) {
    let v = vec4f(x[o + c], x[o + c + 1u], x[o + c + 2u], x[o + c + 3u]);
    if (OP == 2u) {
      acc = max(max(max(max(acc, v.x), v.y), v.z), v.w);
    } else {
      acc += v.x;
      acc += v.y;
      acc += v.z;
      acc += v.w;
    }
  }
  for (; c < p.cols; c++) {
    if (OP == 2u) {
      acc = max(acc, x[o + c]);
    } else {
      acc += x[o + c];
    }
  }
  y[r] = select(acc, acc / f32(p.cols), OP == 1u);
}
