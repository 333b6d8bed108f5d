// Backward of cross_entropy.wgsl: gx[r, c] += gy·w[r]·(exp(x[r, c] − m_r − ls_r) − [c = t[r]]), gy the
// scalar loss gradient and stats = [m_r, ls_r] per row from the forward. One invocation per element of x.
struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> t: array<u32>;
@group(0) @binding(3) var<storage, read> w: array<f32>;
@group(0) @binding(4) var<storage, read> stats: array<f32>;
@group(0) @binding(5) var<storage, read> gy: array<f32>;
@group(0) @binding(6) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let r = i / p.cols;
  let c = i % p.cols;
  let g = gy[0] * w[r];
  let onehot = select(0.0, 1.0, c == t[r]);
  gx[i] = gx[i] + g * (exp(x[i] - stats[2u * r] - stats[2u * r + 1u]) - onehot);
}
