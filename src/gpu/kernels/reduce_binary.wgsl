// A row reduction and a binary op on its result, in one dispatch (plan-fuse.ts): reduce.wgsl's
// row r, then binary.wgsl's element r with the reduction's output as operand a (SIDE = 0) or b
// (SIDE = 1) and w as the other (a sum of edge log π added to the node's, a row's entropy times
// its weight):
//   y[r] = reduce_c x[r·cols + c] (r < rows);  z[r] = y[r] op w[r] or w[r] op y[r] (r < n)
// One invocation per row, as reduce.wgsl; each part's expression is its kernel's (reduce_row.wgsl,
// binary_op.wgsl, which kernels.ts prepends) and keeps its own length (live rows, live.ts), and
// the binary reads the reduction's output only at its own row: the bits of the two dispatches.
override OP: u32 = 0u;
override BOP: u32 = 0u;
override SIDE: u32 = 0u;

struct P {
  rows: u32,
  cols: u32,
  n: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read_write> z: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r < p.rows) {
    y[r] = reduceRow(r * p.cols, p.cols, OP);
  }
  if (r < p.n) {
    let s = y[r];
    z[r] = select(binaryOp(BOP, s, w[r]), binaryOp(BOP, w[r], s), SIDE == 1u);
  }
}
