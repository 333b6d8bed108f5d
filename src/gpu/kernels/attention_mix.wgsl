// Mixes rows of x by attention weights w ([batch, heads, seq, seq], row i = query i), per head:
// TRANSPOSE = 0: out[b, t, c] (+)= scale·Σ_{j ≤ t} w[b, h, t, j]·x[b, j, c]   (output = P·V; dq = dS·K)
// TRANSPOSE = 1: out[b, t, c] (+)= scale·Σ_{i ≥ t} w[b, h, i, t]·x[b, i, c]   (dk = dSᵀ·Q; dv = Pᵀ·dO)
// where h = c / (d / heads); x and out are row-major [batch·seq, d]. One invocation per output
// float, so every write is owned and the sums are deterministic. For heads narrower than 32
// columns, where a tile would sit mostly idle; attention_mix_tiled.wgsl gives the same bits for
// wider ones. No barriers, so software adapters run it at full speed.
override TRANSPOSE: u32 = 0u;
override ACCUMULATE: u32 = 0u;

struct P {
  n: u32,
  seq: u32,
  d: u32,
  heads: u32,
  scale: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> w: array<f32>;
@group(0) @binding(2) var<storage, read> x: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let o = gid.x + gid.y * nwg.x * 256u;
  if (o >= p.n) {
    return;
  }
  let c = o % p.d;
  let row = o / p.d;
  let t = row % p.seq;
  let b = row / p.seq;
  let h = c / (p.d / p.heads);
  let wb = (b * p.heads + h) * p.seq;
  let xb = b * p.seq * p.d + c;
  var s = 0.0;
  if (TRANSPOSE == 0u) {
    let wo = (wb + t) * p.seq;
    for (var j = 0u; j <= t; j++) {
      s += w[wo + j] * x[xb + j * p.d];
    }
  } else {
    for (var i = t; i < p.seq; i++) {
      s += w[(wb + i) * p.seq + t] * x[xb + i * p.d];
    }
  }
  s *= p.scale;
  if (ACCUMULATE == 1u) {
    out[o] = out[o] + s;
  } else {
    out[o] = s;
  }
}
