// What bias_act_grad.wgsl and bias_act_grad_pair.wgsl share, prepended to both (webgpu/kernels.ts,
// after activation.wgsl): the bindings of a bias activation's backward and its step at element i.
// Each kernel declares its own uniform struct P, whose first two words are n and cols.
override WRITE_GX: u32 = 1u;

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> dz: array<f32>;
@group(0) @binding(5) var<storage, read_write> gx: array<f32>;

// dz[i] = gy[i] · act'(x[i] + bias[i % cols]); gx[i] += dz[i] when WRITE_GX = 1 (i < n).
fn biasActGradAt(i: u32) {
  if (i >= p.n) {
    return;
  }
  let g = gy[i] * actGrad(x[i] + bias[i % p.cols]);
  dz[i] = g;
  if (WRITE_GX == 1u) {
    gx[i] = gx[i] + g;
  }
}
