// y[i] = f(x[i]) over n floats. OP: 0 scale (alpha·x), 1 exp, 2 log, 3 sigmoid, 4 tanh.
override OP: u32 = 0u;

struct P {
  n: u32,
  alpha: f32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= p.n) {
    return;
  }
  let v = x[i];
  switch OP {
    case 1u: {
      y[i] = exp(v);
    }
    case 2u: {
      y[i] = log(v);
    }
    case 3u: {
      y[i] = sigmoid(v);
    }
    case 4u: {
      y[i] = tanh(clamp(v, -15.0, 15.0));
    }
    default: {
      y[i] = p.alpha * v;
    }
  }
}
