// Backward of y = act(x + bias): dz[i] = gy[i] · act'(x[i] + bias[i % cols]); gx[i] += dz[i] when
// WRITE_GX = 1 (gx is a scratch buffer otherwise). dz (row-major [rows, cols]) is kept so that
// col_sum.wgsl can add Σ_rows dz into the bias gradient. actGrad() and the ACT override come from
// activation.wgsl, prepended to this source (webgpu/kernels.ts).
override WRITE_GX: u32 = 1u;

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> dz: array<f32>;
@group(0) @binding(5) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let g = gy[i] * actGrad(x[i] + bias[i % p.cols]);
  dz[i] = g;
  if (WRITE_GX == 1u) {
    gx[i] = gx[i] + g;
  }
}
