// The activations of bias_act.wgsl and the kernels fused with it (plan-fuse.ts), and their
// derivatives for bias_act_grad.wgsl: prepended to each of those kernels' sources (webgpu/kernels.ts),
// so that every one computes act(z) and act'(z) with the same code, hence the same bits.
// ACT: 0 none, 1 relu, 2 tanh, 3 gelu (tanh approximation), 4 sigmoid.
override ACT: u32 = 0u;

// sqrt(2/π)
const GELU_C = 0.7978845608028654;

// tanh through exp overflows to inf/inf for |z| > ~44 on some drivers; tanh(±15) is ±1 in f32.
fn safeTanh(z: f32) -> f32 {
  return tanh(clamp(z, -15.0, 15.0));
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
