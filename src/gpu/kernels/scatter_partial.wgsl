// First pass of the scatter (see scatter_add_rows.wgsl): partial[k, c] = Σ src[sources[j], c] over
// the sources j of chunk k, in increasing j. Row r's sources offsets[r] … offsets[r + 1] are cut
// into chunks of at most CHUNK = 64 (csr.ts, the same number): chunk k belongs to row chunkRow[k]
// and is its (k − chunks[r])-th. One invocation per (chunk, column), so a row with thousands of
// sources is summed by many invocations, none walking more than 64 of them. No barriers, no atomics.
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
  var s = 0.0;
  // Four sources at a time: their indices, then their values, then the adds in increasing j (the
  // same bits as one at a time); a real GPU waits on memory twice per four sources, not per source.
  var j = start;
  for (; j + 4u <= end; j += 4u) {
    let i0 = sources[j];
    let i1 = sources[j + 1u];
    let i2 = sources[j + 2u];
    let i3 = sources[j + 3u];
    let v0 = src[i0 * p.cols + c];
    let v1 = src[i1 * p.cols + c];
    let v2 = src[i2 * p.cols + c];
    let v3 = src[i3 * p.cols + c];
    s += v0;
    s += v1;
    s += v2;
    s += v3;
  }
  for (; j < end; j++) {
    s += src[sources[j] * p.cols + c];
  }
  partial[o] = s;
}
