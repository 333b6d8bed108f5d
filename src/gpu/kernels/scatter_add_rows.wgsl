// out[r, c] (+)= Σ_{i : idx[i] = r} src[i, c]: src row-major [count, cols], out [outRows, cols].
// Sums messages into their destination nodes (ACCUMULATE = 0), and is the backward of
// gather_rows.wgsl (ACCUMULATE = 1: table gradient += Σ of the output gradient rows that read it).
// The indices come as lists per destination row (CSR, built on the host from the index input:
// model.ts `csrOf`): offsets [outRows + 1], sources [count] = the i with idx[i] = r, increasing.
// Each invocation owns one output float and reads only its own row's sources, in increasing i, so
// the sum is race-free and deterministic without float atomics, in O(outRows·cols + count·cols).
override ACCUMULATE: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> sources: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let r = o / p.cols;
  let c = o % p.cols;
  let end = offsets[r + 1u];
  var s = 0.0;
  for (var j = offsets[r]; j < end; j++) {
    s += src[sources[j] * p.cols + c];
  }
  if (ACCUMULATE == 1u) {
    out[o] = out[o] + s;
  } else {
    out[o] = s;
  }
}
