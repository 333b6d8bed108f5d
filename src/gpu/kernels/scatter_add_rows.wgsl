// out[r, c] (+)= Σ_{i : idx[i] = r} src[i, c]: src row-major [count, cols], idx u32 [count], out
// [outRows, cols]. Sums messages into their destination nodes, and is the backward of
// gather_rows.wgsl (ACCUMULATE = 1). Each invocation owns one output float and scans idx, so the
// sum is race-free and deterministic without float atomics (O(outRows·cols·count): small graphs).
override ACCUMULATE: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
  count: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let r = o / p.cols;
  let c = o % p.cols;
  var s = 0.0;
  for (var i = 0u; i < p.count; i++) {
    if (idx[i] == r) {
      s += src[i * p.cols + c];
    }
  }
  if (ACCUMULATE == 1u) {
    out[o] = out[o] + s;
  } else {
    out[o] = s;
  }
}
