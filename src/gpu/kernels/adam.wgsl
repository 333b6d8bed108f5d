// One Adam(W) update over the whole parameter arena (n floats), in place:
//   g' = g·s (s = clip scale from grad_norm.wgsl); m = β₁m + (1−β₁)g'; v = β₂v + (1−β₂)g'²;
//   p −= lr·( (m/bc1) / (sqrt(v/bc2) + eps) + wd·p ),  bc1 = 1 − β₁ᵗ, bc2 = 1 − β₂ᵗ (from the host,
//   which counts steps t). wd is AdamW's decoupled weight decay (0 = Adam).
struct P {
  n: u32,
  lr: f32,
  beta1: f32,
  beta2: f32,
  eps: f32,
  wd: f32,
  bc1: f32,
  bc2: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read_write> params: array<f32>;
@group(0) @binding(2) var<storage, read> g: array<f32>;
@group(0) @binding(3) var<storage, read_write> m: array<f32>;
@group(0) @binding(4) var<storage, read_write> v: array<f32>;
@group(0) @binding(5) var<storage, read> norm: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let gi = g[i] * norm[1];
  let mi = p.beta1 * m[i] + (1.0 - p.beta1) * gi;
  let vi = p.beta2 * v[i] + (1.0 - p.beta2) * gi * gi;
  m[i] = mi;
  v[i] = vi;
  let pi = params[i];
  params[i] = pi - p.lr * ((mi / p.bc1) / (sqrt(vi / p.bc2) + p.eps) + p.wd * pi);
}
