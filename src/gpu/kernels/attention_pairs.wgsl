// Causal attention scores for narrow heads (attention.wgsl tiles them for heads of 32 columns and
// more), one invocation per (b, h, i, j) entry of probs[((b·heads + h)·seq + i)·seq + j]:
// scale·(q_i·k_j) for j ≤ i, the dot over head h's columns [h·hd, (h+1)·hd) summed in increasing
// column order from zero, then scaled (the order of attention.wgsl, so both give the same bits);
// entries above the diagonal are left for attention_rows.wgsl to zero. SEGMENTS = 1: a key of
// another segment is written as -3e38. No barriers, so software adapters run it at full speed.
override SEGMENTS: u32 = 0u;

struct P {
  batch: u32,
  seq: u32,
  d: u32,
  heads: u32,
  scale: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> seg: array<u32>;
@group(0) @binding(4) var<storage, read_write> probs: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let e = gid.x + gid.y * nwg.x * 256u;
  if (e >= p.batch * p.heads * p.seq * p.seq) {
    return;
  }
  let j = e % p.seq;
  let i = (e / p.seq) % p.seq;
  if (j > i) {
    return;
  }
  let h = (e / (p.seq * p.seq)) % p.heads;
  let b = e / (p.seq * p.seq * p.heads);
  let row0 = b * p.seq;
  if (SEGMENTS == 1u && seg[row0 + j] != seg[row0 + i]) {
    probs[e] = -3.0e38;
    return;
  }
  let hd = p.d / p.heads;
  let qo = (row0 + i) * p.d + h * hd;
  let ko = (row0 + j) * p.d + h * hd;
  var s = 0.0;
  for (var c = 0u; c < hd; c++) {
    s += q[qo + c] * k[ko + c];
  }
  s *= p.scale;
  probs[e] = s;
}
