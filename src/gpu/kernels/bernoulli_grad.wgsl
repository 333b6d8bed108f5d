// Backward of bernoulli.wgsl, accumulated: gx += gy·(t − sigmoid(x)) when WRITE_GX = 1,
// gt += gy·x when WRITE_GT = 1 (a disabled output is bound to a scratch buffer).
override WRITE_GX: u32 = 1u;
override WRITE_GT: u32 = 0u;

struct P {
  n: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> t: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> gx: array<f32>;
@group(0) @binding(5) var<storage, read_write> gt: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let v = x[i];
  if (WRITE_GX == 1u) {
    gx[i] = gx[i] + gy[i] * (t[i] - sigmoid(v));
  }
  if (WRITE_GT == 1u) {
    gt[i] = gt[i] + gy[i] * v;
  }
}
