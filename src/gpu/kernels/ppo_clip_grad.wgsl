// Backward of ppo_clip.wgsl: glogp[i] += gy·coef[i], gy the scalar loss gradient. One invocation per row.
struct P {
  rows: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> coef: array<f32>;
@group(0) @binding(2) var<storage, read> gy: array<f32>;
@group(0) @binding(3) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.rows) {
    return;
  }
  gx[i] = gx[i] + gy[0] * coef[i];
}
