// Backward of pick.wgsl: gx[r·cols + c] += gy[r] when c = idx[r]. One invocation per element of
// x, so no two invocations write the same float.
struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> gy: array<f32>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(3) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let r = i / p.cols;
  if (i % p.cols == idx[r]) {
    gx[i] = gx[i] + gy[r];
  }
}
