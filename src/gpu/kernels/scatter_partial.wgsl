// First pass of the scatter (see scatter_add_rows.wgsl): partial[k, c] = Σ src[sources[j], c] over
// the sources j of chunk k, in increasing j. Row r's sources offsets[r] … offsets[r + 1] are cut
// into chunks of at most CHUNK = 64 (csr.ts, the same number): chunk k belongs to row chunkRow[k]
// and is its (k − chunks[r])-th. One invocation per (chunk, column), so a row with thousands of
// sources is summed by many invocations, none walking more than 64 of them. No barriers, no atomics. The loop, chunkSum, is in scatter_chunk.wgsl
// (prepended by kernels.ts).
const CHUNK: u32 = 64u;

struct P {
  n: u32,
  cols: u32,
  rows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> offsets: array<u32>;
@group(0) @binding(3) var<storage, read> sources: array<u32>;
@group(0) @binding(4) var<storage, read> chunks: array<u32>;
@group(0) @binding(5) var<storage, read> chunkRow: array<u32>;
@group(0) @binding(6) var<storage, read_write> partial: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let k = o / p.cols;
  let c = o % p.cols;
  if (k >= chunks[p.rows]) {
    return;
  }
  let r = chunkRow[k];
  let start = offsets[r] + (k - chunks[r]) * CHUNK;
  let end = min(start + CHUNK, offsets[r + 1u]);
  partial[o] = chunkSum(start, end, c);
}
