// y[r] = reduce_c x[r·cols + c] over the last axis of a row-major [rows, cols] x (reduce_row.wgsl,
// which kernels.ts prepends). OP: 0 sum, 1 mean, 2 max. One invocation per row with a serial
// loop: policy rows are short (≤ a few hundred floats), and kernels without workgroup barriers run
// far faster on software adapters, where every barrier switches coroutines (measured on SwiftShader: two row reductions of a [256, 64]
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
  y[r] = reduceRow(r * p.cols, p.cols, OP);
}
