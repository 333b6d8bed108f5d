// Causal attention probabilities: probs[((b·heads + h)·seq + i)·seq + j] = softmax_j≤i(q_i·k_j·scale)
// for head h (columns [h·hd, (h+1)·hd) of the row-major [batch·seq, d] q and k), 0 for j > i. One
// invocation per (b, h, i) row, like softmax.wgsl: rows are short and barrier-free kernels run far
// faster on software adapters. attention_mix.wgsl then forms the output from these rows.
// SEGMENTS = 1: key j is also hidden (probability 0) unless seg[b·seq + j] = seg[b·seq + i], so
// examples packed into one sequence do not see each other; j = i always qualifies.
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

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let r = gid.x + gid.y * nwg.x * 64u;
  if (r >= p.batch * p.heads * p.seq) {
    return;
  }
  let i = r % p.seq;
  let h = (r / p.seq) % p.heads;
  let b = r / (p.seq * p.heads);
  let hd = p.d / p.heads;
  let base = b * p.seq * p.d + h * hd;
  let qo = base + i * p.d;
  let po = r * p.seq;
  let row0 = b * p.seq;
  var si = 0u;
  if (SEGMENTS == 1u) {
    si = seg[row0 + i];
  }
  var mx = -3.0e38;
  for (var j = 0u; j <= i; j++) {
    if (SEGMENTS == 1u && seg[row0 + j] != si) {
      probs[po + j] = -3.0e38;
      continue;
    }
    let ko = base + j * p.d;
    var s = 0.0;
    for (var c = 0u; c < hd; c++) {
      s += q[qo + c] * k[ko + c];
    }
    s *= p.scale;
    probs[po + j] = s;
    mx = max(mx, s);
  }
  var total = 0.0;
  for (var j = 0u; j <= i; j++) {
    let e = select(0.0, exp(probs[po + j] - mx), SEGMENTS == 0u || seg[row0 + j] == si);
    probs[po + j] = e;
    total += e;
  }
  for (var j = 0u; j < p.seq; j++) {
    probs[po + j] = select(0.0, probs[po + j] / total, j <= i);
  }
}
