// Second pass of a split-K product (the first is matmul.wgsl or matmul_tiled.wgsl with SPLIT_K = 1): C[o] (+)= Σ_z partial[z][o] over the
// ⌈k / 64⌉ chunks in increasing z, one invocation per output element o of the row-major [m, n] C
// (ACCUMULATE = 1 adds into C, as gradients do). The sum starts at 0, so one chunk gives exactly
// the partial (matmul.wgsl's bits); K = 0 writes 0 (or leaves C as it was).
override ACCUMULATE: u32 = 0u;
const CHUNK: u32 = 64u;

struct Dims {
  m: u32,
  n: u32,
  k: u32,
  batch: u32,
}

@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> partial: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  let len = d.m * d.n;
  if (o >= len) {
    return;
  }
  let chunks = (d.k + CHUNK - 1u) / CHUNK;
  var s = 0.0;
  for (var z = 0u; z < chunks; z++) {
    s += partial[z * len + o];
  }
  if (ACCUMULATE == 1u) {
    C[o] = C[o] + s;
  } else {
    C[o] = s;
  }
}
