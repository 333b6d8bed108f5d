// Causal attention probabilities from the scores attention.wgsl wrote: per (b, h, i) row of
// probs[((b·heads + h)·seq + i)·seq + j], a softmax over the visible keys j ≤ i (with SEGMENTS = 1,
// those of query i's segment), 0 elsewhere. One invocation per row, like softmax.wgsl (rows are
// short and barrier-free kernels run far faster on software adapters); the maximum, the sum of
// exponentials in increasing j and the division are those of attention.wgsl before its scores had
// a kernel of their own, so the bits are the same. attention_mix.wgsl then forms the output.
override SEGMENTS: u32 = 0u;

struct P {
  batch: u32,
  seq: u32,
  d: u32,
  heads: u32,
  scale: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> seg: array<u32>;
@group(0) @binding(2) var<storage, read_write> probs: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.batch * p.heads * p.seq) {
    return;
  }
  let i = r % p.seq;
  let b = r / (p.seq * p.heads);
  let po = r * p.seq;
  let row0 = b * p.seq;
  var si = 0u;
  if (SEGMENTS == 1u) {
    si = seg[row0 + i];
  }
  var mx = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (SEGMENTS == 1u && seg[row0 + j] != si) {
      continue;
    }
    mx = max(mx, probs[po + j]);
  }
  var total = 0.0;
  for (var j = 0u; j <= i; j++) {
    let e = select(0.0, exp(probs[po + j] - mx), SEGMENTS == 0u || seg[row0 + j] == si);
    probs[po + j] = e;
    total += e;
  }
  for (var j = 0u; j <= i; j++) {
    probs[po + j] = probs[po + j] / total;
  }
  for (var j = i + 1u; j < p.seq; j++) {
    probs[po + j] = 0.0;
  }
}
