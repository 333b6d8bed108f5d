// Backward of the attention softmax, one invocation per (b, h, i, j) entry of the
// [batch, heads, seq, seq] score gradient: dS_ij = P_ij·(dO_i·v_j − dO_i·out_i) for j ≤ i, else 0,
// dot products over head h's columns. dO_i·out_i equals Σ_j P_ij·dO_i·v_j, the softmax backward's
// row sum, so no row reduction is needed. attention_mix.wgsl turns dS into dq and dk. For heads
// narrower than 32 columns; attention_dscores_tiled.wgsl gives the same bits for wider ones.
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

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let e = gid.x + gid.y * nwg.x * 256u;
  if (e >= p.batch * p.heads * p.seq * p.seq) {
    return;
  }
  let j = e % p.seq;
  let i = (e / p.seq) % p.seq;
  let h = (e / (p.seq * p.seq)) % p.heads;
  let b = e / (p.seq * p.seq * p.heads);
  if (j > i) {
    ds[e] = 0.0;
    return;
  }
  let hd = p.d / p.heads;
  let io = (b * p.seq + i) * p.d + h * hd;
  let jo = (b * p.seq + j) * p.d + h * hd;
  var dp = 0.0;
  var dd = 0.0;
  for (var c = 0u; c < hd; c++) {
    let g = gout[io + c];
    dp += g * v[jo + c];
    dd += g * out[io + c];
  }
  ds[e] = probs[e] * (dp - dd);
}
