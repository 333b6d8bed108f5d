// out[r] = x[r·cols + idx[r]]: one entry per row of a row-major [rows, cols] x, e.g. the
// log-probability of the action taken. idx is u32 [rows].
struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 256u;
  if (r >= p.rows) {
    return;
  }
  out[r] = x[r * p.cols + idx[r]];
}
