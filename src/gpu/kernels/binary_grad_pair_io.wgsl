// What binary_grad_pair.wgsl and grad_pair_then.wgsl share, prepended to both (webgpu/kernels.ts,
// after binary_grad_d.wgsl): the pair's bindings and its step at element i. Each kernel declares
// its own uniform struct P, whose first two words are the pair's lengths.
override OP: u32 = 0u;

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read> gy: array<f32>;
@group(0) @binding(4) var<storage, read_write> ga: array<f32>;
@group(0) @binding(5) var<storage, read_write> gb: array<f32>;

// binary_grad.wgsl's expression for operand a (i < na), then for operand b (i < nb).
fn pairAt(i: u32) {
  if (i < p.na) {
    ga[i] = ga[i] + binaryGradD(i, OP, 0u) * gy[i];
  }
  if (i < p.nb) {
    gb[i] = gb[i] + binaryGradD(i, OP, 1u) * gy[i];
  }
}
