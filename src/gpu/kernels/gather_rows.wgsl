// out[i, c] (+)= table[idx[i], c]: out is row-major [count, cols], table [tableRows, cols], idx u32
// [count]. Embedding lookup, reading a node's state along each edge, and the backward of
// scatter_add_rows.wgsl (ACCUMULATE = 1). Indices ≥ tableRows read 0.
override ACCUMULATE: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
  tableRows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let r = idx[i / p.cols];
  var v = 0.0;
  if (r < p.tableRows) {
    v = table[r * p.cols + i % p.cols];
  }
  if (ACCUMULATE == 1u) {
    out[i] = out[i] + v;
  } else {
    out[i] = v;
  }
}
