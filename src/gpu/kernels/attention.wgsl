// Causal attention scores, the first half of the attention probabilities (attention_rows.wgsl
// turns them into a softmax per row): probs[((b·heads + h)·seq + i)·seq + j] = scale·(q_i·k_j) for
// j ≤ i, the dot over head h's columns [h·hd, (h+1)·hd) of the row-major [batch·seq, d] q and k.
// Entries above the diagonal are left for attention_rows.wgsl to zero.
// SEGMENTS = 1: key j is hidden unless seg[b·seq + j] = seg[b·seq + i] (examples packed into one
// sequence do not see each other); a hidden entry is written as -3e38.
// A workgroup of 16x16 invocations computes a 64x64 tile of one (b, h) score matrix; only tiles on
// or below the diagonal are dispatched (x = the tile's index in the lower triangle, y = b·heads + h).
// Per column chunk of 16 it stages q[64, 16] and k[64, 16] in workgroup memory; each invocation
// adds into a 4x4 register block (rows ty + 16r, columns tx + 16c). Each dot is summed in increasing
// column order from zero, one product at a time, then scaled: the order of attention_pairs.wgsl
// (one entry per invocation, for heads narrower than 32 columns), so the bits are the same.
override SEGMENTS: u32 = 0u;

const TILE: u32 = 64u;
const TK: u32 = 16u;
// Staged rows are padded to 65 floats against bank conflicts.
const LD: u32 = 65u;

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

// Qs[c * LD + r] = q[row0 + r, c0 + c]; Ks[c * LD + r] = k[col0 + r, c0 + c] (head columns).
var<workgroup> Qs: array<f32, 1040>;
var<workgroup> Ks: array<f32, 1040>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  // Lower-triangle tile index t → (ti, tj), tj ≤ ti: t = ti·(ti + 1)/2 + tj.
  let t = wid.x;
  var ti = u32((sqrt(8.0 * f32(t) + 1.0) - 1.0) * 0.5);
  if ((ti + 1u) * (ti + 2u) / 2u <= t) {
    ti += 1u;
  }
  if (ti * (ti + 1u) / 2u > t) {
    ti -= 1u;
  }
  let tj = t - ti * (ti + 1u) / 2u;
  let bh = wid.y;
  let b = bh / p.heads;
  let h = bh % p.heads;
  let hd = p.d / p.heads;
  let row0 = ti * TILE;
  let col0 = tj * TILE;
  let base = b * p.seq * p.d + h * hd;
  let tx = lid.x;
  let ty = lid.y;
  let lin = ty * 16u + tx;
  var acc: array<vec4f, 4>;
  for (var r = 0u; r < 4u; r++) {
    acc[r] = vec4f(0.0);
  }
  for (var c0 = 0u; c0 < hd; c0 += TK) {
    for (var l = 0u; l < 4u; l++) {
      let e = lin + l * 256u;
      let r = e / TK;
      let c = e % TK;
      var qv = 0.0;
      var kv = 0.0;
      if (c0 + c < hd) {
        if (row0 + r < p.seq) {
          qv = q[base + (row0 + r) * p.d + c0 + c];
        }
        if (col0 + r < p.seq) {
          kv = k[base + (col0 + r) * p.d + c0 + c];
        }
      }
      Qs[c * LD + r] = qv;
      Ks[c * LD + r] = kv;
    }
    workgroupBarrier();
    let cn = min(TK, hd - c0);
    for (var c = 0u; c < cn; c++) {
      let kk = vec4f(Ks[c * LD + tx], Ks[c * LD + tx + 16u], Ks[c * LD + tx + 32u], Ks[c * LD + tx + 48u]);
      for (var r = 0u; r < 4u; r++) {
        let qq = Qs[c * LD + ty + 16u * r];
        acc[r] = acc[r] + qq * kk;
      }
    }
    workgroupBarrier();
  }
  let row0g = (bh * p.seq) * p.seq;
  for (var r = 0u; r < 4u; r++) {
    let i = row0 + ty + 16u * r;
    if (i >= p.seq) {
      continue;
    }
    var si = 0u;
    if (SEGMENTS == 1u) {
      si = seg[b * p.seq + i];
    }
    for (var cc = 0u; cc < 4u; cc++) {
      let j = col0 + tx + 16u * cc;
      if (j > i) {
        continue;
      }
      var s = acc[r][cc] * p.scale;
      if (SEGMENTS == 1u && seg[b * p.seq + j] != si) {
        s = -3.0e38;
      }
      probs[row0g + i * p.seq + j] = s;
    }
  }
}
