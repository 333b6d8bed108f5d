// out[r, c] (+)= Σ_{i : idx[i] = r} src[i, c]: src row-major [count, cols], out [outRows, cols].
// Sums messages into their destination nodes (ACCUMULATE = 0), and is the backward of
// gather_rows.wgsl (ACCUMULATE = 1: table gradient += Σ of the output gradient rows that read it).
// The indices come as lists per destination row (CSR, built on the host from the index input:
// csr.ts `csrOf`), cut into chunks of at most 64 sources. Second pass: scatter_partial.wgsl has
// summed each chunk into partial[k, c]; here each output float adds its row's chunks in order.
// Race-free and deterministic without float atomics. A row of at most 64 sources is one chunk:
// 0 + s = s, the sum in increasing i, bit for bit the CPU's; longer rows sum in another order.
override ACCUMULATE: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read> chunks: array<u32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let r = o / p.cols;
  let c = o % p.cols;
  let end = chunks[r + 1u];
  var s = 0.0;
  for (var k = chunks[r]; k < end; k++) {
    s += partial[k * p.cols + c];
  }
  if (ACCUMULATE == 1u) {
    out[o] = out[o] + s;
  } else {
    out[o] = s;
  }
}
