// What layer_norm_grad.wgsl and layer_norm_grad_wide.wgsl share, prepended to both
// (webgpu/kernels.ts): the override, sizes and bindings. gxh = gy·x̂ is row-major [rows, cols].
override WRITE_GX: u32 = 1u;

struct P {
  rows: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> gamma: array<f32>;
@group(0) @binding(3) var<storage, read> stats: array<f32>;
@group(0) @binding(4) var<storage, read> gy: array<f32>;
@group(0) @binding(5) var<storage, read_write> gxh: array<f32>;
@group(0) @binding(6) var<storage, read_write> gx: array<f32>;
