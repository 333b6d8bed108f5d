// Mixes rows of x by attention weights w ([batch, heads, seq, seq], row i = query i), per head:
// TRANSPOSE = 0: out[b, t, c] (+)= scale·Σ_{j ≤ t} w[b, h, t, j]·x[b, j, c]   (output = P·V; dq = dS·K)
// TRANSPOSE = 1: out[b, t, c] (+)= scale·Σ_{i ≥ t} w[b, h, i, t]·x[b, i, c]   (dk = dSᵀ·Q; dv = Pᵀ·dO)
// where h = c / (d / heads); x and out are row-major [batch·seq, d]. Entries of w outside those
// ranges are never read as numbers (the score gradient leaves them unwritten).
// A workgroup of 16x16 invocations computes a 64 x 16·COLS tile of one head's [seq, hd] output
// (x = row tile, y = column tile, z = b·heads + h; COLS = 1, 2 or 4, the planner's pick for the
// head width). Per chunk of 16 summation indices it stages w[64, 16] (weights outside the causal
// range staged as 0) and x[16, 16·COLS] in workgroup memory; each invocation adds into a 4 x COLS
// register block (rows ty + 16r, columns tx + 16c). Every output is
// summed in increasing index from zero, one product at a time: the order of
// attention_mix.wgsl (one output per invocation, for narrow heads). The extra terms are +0 or -0 (0·x for finite x),
// which leave a sum that starts at +0 unchanged, so the bits are the same for finite x.
override TRANSPOSE: u32 = 0u;
override ACCUMULATE: u32 = 0u;
override COLS: u32 = 4u;

const TILE: u32 = 64u;
const TK: u32 = 16u;
const LD: u32 = 65u;

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

// Ws[k * LD + r] = weight of output row t0 + r and summation index k0 + k; Xs[k * LD + c] = x row
// k0 + k, head column c0 + c. Rows padded to 65 floats against bank conflicts.
var<workgroup> Ws: array<f32, 1040>;
var<workgroup> Xs: array<f32, 1040>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let hd = p.d / p.heads;
  let bh = wid.z;
  let b = bh / p.heads;
  let h = bh % p.heads;
  let ct = 16u * COLS;
  let t0 = wid.x * TILE;
  let c0 = wid.y * ct;
  let wb = bh * p.seq;
  let xb = b * p.seq * p.d + h * hd;
  let tx = lid.x;
  let ty = lid.y;
  let lin = ty * 16u + tx;
  // acc[4r + c]: row ty + 16r, column tx + 16c.
  var acc: array<f32, 16>;
  for (var r = 0u; r < 16u; r++) {
    acc[r] = 0.0;
  }
  // T = 0: j in [0, min(seq, t0 + 64)); T = 1: i in [t0, seq).
  var k0 = 0u;
  var kEnd = min(p.seq, t0 + TILE);
  if (TRANSPOSE == 1u) {
    k0 = t0;
    kEnd = p.seq;
  }
  for (; k0 < kEnd; k0 += TK) {
    for (var l = 0u; l < 4u; l++) {
      let e = lin + l * 256u;
      var wv = 0.0;
      if (TRANSPOSE == 0u) {
        // Along j (contiguous in w).
        let r = e / TK;
        let k = e % TK;
        let t = t0 + r;
        let j = k0 + k;
        if (t < p.seq && j <= t) {
          wv = w[(wb + t) * p.seq + j];
        }
        Ws[k * LD + r] = wv;
      } else {
        // Along t (contiguous in w's row i).
        let r = e % TILE;
        let k = e / TILE;
        let t = t0 + r;
        let i = k0 + k;
        if (i < p.seq && i >= t) {
          wv = w[(wb + i) * p.seq + t];
        }
        Ws[k * LD + r] = wv;
      }
    }
    for (var l = 0u; l < COLS; l++) {
      let e = lin + l * 256u;
      let c = e % ct;
      let k = e / ct;
      var xv = 0.0;
      if (k0 + k < p.seq && c0 + c < hd) {
        xv = x[xb + (k0 + k) * p.d + c0 + c];
      }
      Xs[k * LD + c] = xv;
    }
    workgroupBarrier();
    for (var k = 0u; k < TK; k++) {
      for (var cc = 0u; cc < COLS; cc++) {
        let xk = Xs[k * LD + tx + 16u * cc];
        for (var r = 0u; r < 4u; r++) {
          acc[4u * r + cc] += Ws[k * LD + ty + 16u * r] * xk;
        }
      }
    }
    workgroupBarrier();
  }
  for (var r = 0u; r < 4u; r++) {
    let t = t0 + ty + 16u * r;
    if (t >= p.seq) {
      continue;
    }
    for (var cc = 0u; cc < COLS; cc++) {
      let c = c0 + tx + 16u * cc;
      if (c >= hd) {
        continue;
      }
      let o = xb + t * p.d + c;
      let s = acc[4u * r + cc] * p.scale;
      if (ACCUMULATE == 1u) {
        out[o] = out[o] + s;
      } else {
        out[o] = s;
      }
    }
  }
}
