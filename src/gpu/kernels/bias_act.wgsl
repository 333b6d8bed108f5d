// y[i] = act(x[i] + bias[i % cols]) over a row-major [rows, cols] tensor of n = rows·cols floats.
// bias is [cols] (a zero buffer when the layer has none).
// ACT: 0 none, 1 relu, 2 tanh, 3 gelu (tanh approximation), 4 sigmoid.
override ACT: u32 = 0u;

struct P {
  n: u32,
  cols: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> bias: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;

// sqrt(2/π)
const GELU_C = 0.7978845608028654;

// tanh through exp overflows to inf/inf for |z| > ~44 on some drivers; tanh(±15) is ±1 in f32.
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

fn act(z: f32) -> f32 {
  switch ACT {
    case 1u: {
      return max(z, 0.0);
    }
    case 2u: {
      return safeTanh(z);
    }
    case 3u: {
      return 0.5 * z * (1.0 + safeTanh(GELU_C * (z + 0.044715 * z * z * z)));
    }
    case 4u: {
      return sigmoid(z);
    }
    default: {
      return z;
    }
  }
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  y[i] = act(x[i] + bias[i % p.cols]);
}
