// d (a[i] op b[i]) / d a[i] (which = 0) or / d b[i] (which = 1), op 0 add, 1 sub, 2 mul: one
// expression for binary_grad.wgsl and reduce_grad_binary.wgsl (a kernel that takes this file binds
// the operands as a and b, and takes sum_grad_d.wgsl before this file).
fn binaryGradD(i: u32, op: u32, which: u32) -> f32 {
  var d = sumGradD(op, which);
  if (op == 2u) {
    d = select(b[i], a[i], which == 1u);
  }
  return d;
}
