// y[i] = log Bernoulli(t[i] | sigmoid(x[i])) (bernoulli_log.wgsl, which kernels.ts prepends). x are
// edge logits, t the sampled 0/1 edges.
struct P {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> t: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let v = x[i];
  y[i] = bernoulliLog(v, t[i]);
}
