// d f(x[i]) / d x[i] of unary.wgsl (op 0 scale, 1 exp, 2 log, 3 sigmoid, 4 tanh), written through
// y = f(x): one expression for unary_grad.wgsl and grad_pair_then.wgsl (a kernel that takes this
// file binds the op's input as x and its output as y).
fn unaryGradD(i: u32, op: u32, alpha: f32) -> f32 {
  let yi = y[i];
  var d = alpha;
  switch op {
    case 1u: {
      d = yi;
    }
    case 2u: {
      d = 1.0 / x[i];
    }
    case 3u: {
      d = yi * (1.0 - yi);
    }
    case 4u: {
      d = 1.0 - yi * yi;
    }
    default: {
    }
  }
  return d;
}
