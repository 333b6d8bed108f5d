// The two-pass row scatter (scatter_partial.wgsl, then scatter_add_rows.wgsl) in one pass, for
// source lists that are all short: one invocation per output float walks its row's chunks of at
// most CHUNK = 64 sources (csr.ts), sums each chunk from zero in increasing position, and adds the
// chunk sums in order from zero, then stores (ACCUMULATE = 0) or adds the total into out:
// scatter_partial's and scatter_add_rows's additions, in their order, so the same bits. The model
// dispatches it only while the longest row of the index has at most a few chunks (live.ts
// SCATTER_SHORT_CHUNKS; the two passes otherwise), so no invocation walks a long list alone. Each chunk's loop, chunkSum, is scatter_partial.wgsl's
// (scatter_chunk.wgsl, prepended by kernels.ts): four sources loaded before they are added.
override ACCUMULATE: u32 = 0u;
const CHUNK: u32 = 64u;

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> sources: array<u32>;
@group(0) @binding(4) var<storage, read> chunks: array<u32>;
@group(0) @binding(5) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let r = o / p.cols;
  let c = o % p.cols;
  let first = chunks[r];
  let last = chunks[r + 1u];
  let rowEnd = offsets[r + 1u];
  var s = 0.0;
  for (var k = first; k < last; k++) {
    let start = offsets[r] + (k - first) * CHUNK;
    s += chunkSum(start, min(start + CHUNK, rowEnd), c);
  }
  if (ACCUMULATE == 1u) {
    out[o] = out[o] + s;
  } else {
    out[o] = s;
  }
}
