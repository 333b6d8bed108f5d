// Backward of y = act(x + bias): dz[i] = gy[i] · act'(x[i] + bias[i % cols]); gx[i] += dz[i] when
// WRITE_GX = 1 (gx is a scratch buffer otherwise). dz (row-major [rows, cols]) is kept so that
// col_sum.wgsl can add Σ_rows dz into the bias gradient.
override ACT: u32 = 0u;
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

// sqrt(2/π)
const GELU_C = 0.7978845608028654;

fn safeTanh(z: f32) -> f32 {
  return tanh(clamp(z, -15.0, 15.0));
}

fn sigmoid(z: f32) -> f32 {
  if (z >= 0.0) {
    return 1.0 / (1.0 + exp(-z));
  }
  let e = exp(z);
  return e / (1.0 + e);
}

// d act(z) / dz
fn actGrad(z: f32) -> f32 {
  switch ACT {
    case 1u: {
      return select(0.0, 1.0, z > 0.0);
    }
    case 2u: {
      let t = safeTanh(z);
      return 1.0 - t * t;
    }
    case 3u: {
      let t = safeTanh(GELU_C * (z + 0.044715 * z * z * z));
      return 0.5 * (1.0 + t) + 0.5 * z * (1.0 - t * t) * GELU_C * (1.0 + 3.0 * 0.044715 * z * z);
    }
    case 4u: {
      let s = sigmoid(z);
      return s * (1.0 - s);
    }
    default: {
      return 1.0;
    }
  }
}

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
