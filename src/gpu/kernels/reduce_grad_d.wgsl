// d y[r] / d x[i] of reduce.wgsl (op 0 sum, 1 mean, 2 max; r = i / cols): one expression for
// reduce_grad.wgsl and reduce_grad_binary.wgsl (a kernel that takes this file binds the reduction's
// input as x and its output as y).
fn reduceGradD(i: u32, r: u32, cols: u32, op: u32) -> f32 {
  var d = 1.0;
  if (op == 1u) {
    d = 1.0 / f32(cols);
  }
  if (op == 2u) {
    d = select(0.0, 1.0, x[i] == y[r]);
  }
  return d;
}
