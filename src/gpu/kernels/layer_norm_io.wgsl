// What layer_norm.wgsl and layer_norm_wide.wgsl share, prepended to both (webgpu/kernels.ts): the
// sizes and bindings. stats is [rows, 2] = (mean, rstd), kept for the backward pass.
struct P {
  rows: u32,
  cols: u32,
  eps: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> beta: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<storage, read_write> stats: array<f32>;
