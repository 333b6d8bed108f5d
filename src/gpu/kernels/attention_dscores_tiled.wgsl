// Backward of the attention softmax, the [batch, heads, seq, seq] score gradient:
// dS_ij = P_ij·(dO_i·v_j − dO_i·out_i) for j ≤ i, dot products over head h's columns. dO_i·out_i
// equals Σ_j P_ij·dO_i·v_j, the softmax backward's row sum, so no row reduction is needed.
// attention_mix_tiled.wgsl turns dS into dq and dk. For heads of 32 columns and more.
// A workgroup of 16x16 invocations computes a 64x64 tile of one (b, h) matrix; only tiles on or
// below the diagonal are dispatched (x = the tile's index in the lower triangle, y = b·heads + h),
// and within a diagonal tile entries above the diagonal are written 0; tiles above it are never
// written, and the mix kernels read only j ≤ i. Per column chunk of 16 it stages dO[64, 16],
// out[64, 16] (query rows) and v[64, 16] (key rows) in workgroup memory; each invocation keeps a
// 4x4 block of dO_i·v_j and the 4 dO_i·out_i of its rows. Both dots are summed in increasing
// column order from zero, one product at a time: the order of attention_dscores.wgsl (one entry per
// invocation, for heads narrower than 32 columns), so the bits are the same.
const TILE: u32 = 64u;
const TK: u32 = 16u;
// Staged rows are padded to 65 floats against bank conflicts.
const LD: u32 = 65u;

struct P {
  batch: u32,
  seq: u32,
  d: u32,
  heads: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> probs: array<f32>;
@group(0) @binding(2) var<storage, read> gout: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read> out: array<f32>;
@group(0) @binding(5) var<storage, read_write> ds: array<f32>;

var<workgroup> Gs: array<f32, 1040>;
var<workgroup> Os: array<f32, 1040>;
var<workgroup> Vs: array<f32, 1040>;

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
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
  var dp: array<vec4f, 4>;
  var dd = vec4f(0.0);
  for (var r = 0u; r < 4u; r++) {
    dp[r] = vec4f(0.0);
  }
  for (var c0 = 0u; c0 < hd; c0 += TK) {
    for (var l = 0u; l < 4u; l++) {
      let e = lin + l * 256u;
      let r = e / TK;
      let c = e % TK;
      var gv = 0.0;
      var ov = 0.0;
      var vv = 0.0;
      if (c0 + c < hd) {
        if (row0 + r < p.seq) {
          let o = base + (row0 + r) * p.d + c0 + c;
          gv = gout[o];
          ov = out[o];
        }
        if (col0 + r < p.seq) {
          vv = v[base + (col0 + r) * p.d + c0 + c];
        }
      }
      Gs[c * LD + r] = gv;
      Os[c * LD + r] = ov;
      Vs[c * LD + r] = vv;
    }
    workgroupBarrier();
    let cn = min(TK, hd - c0);
    for (var c = 0u; c < cn; c++) {
      let vk = vec4f(Vs[c * LD + tx], Vs[c * LD + tx + 16u], Vs[c * LD + tx + 32u], Vs[c * LD + tx + 48u]);
      let g = vec4f(Gs[c * LD + ty], Gs[c * LD + ty + 16u], Gs[c * LD + ty + 32u], Gs[c * LD + ty + 48u]);
      let o = vec4f(Os[c * LD + ty], Os[c * LD + ty + 16u], Os[c * LD + ty + 32u], Os[c * LD + ty + 48u]);
      dd = dd + g * o;
      for (var r = 0u; r < 4u; r++) {
        dp[r] = dp[r] + g[r] * vk;
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
    for (var cc = 0u; cc < 4u; cc++) {
      let j = col0 + tx + 16u * cc;
      if (j >= p.seq) {
        continue;
      }
      let e = row0g + i * p.seq + j;
      if (j > i) {
        ds[e] = 0.0;
      } else {
        ds[e] = probs[e] * (dp[r][cc] - dd[r]);
      }
    }
  }
}
