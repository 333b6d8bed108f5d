// Second pass of gather_rows' backward: one invocation per (first occurrence i, column c) sums
// src[i', c] over the chain of indices i' with idx[i'] = idx[i], in increasing i' (the order of
// scatter_add_rows.wgsl and the CPU reference), and adds it to out[idx[i], c]. Each table row is
// written by one invocation per column: no races, no float atomics. Table rows never indexed are
// left as they are (the gradient is accumulated).
struct P {
  n: u32,
  cols: u32,
  count: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> src: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read> links: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let i = o / p.cols;
  let c = o % p.cols;
  if (links[2u * i + 1u] == 0u) {
    return;
  }
  var s = 0.0;
  var j = i;
  loop {
    s += src[j * p.cols + c];
    j = links[2u * j];
    if (j >= p.count) {
      break;
    }
  }
  let dst = idx[i] * p.cols + c;
  out[dst] = out[dst] + s;
}
