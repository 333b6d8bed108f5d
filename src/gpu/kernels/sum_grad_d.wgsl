// d (a op b) / d a (which = 0) or / d b (which = 1) for op 0 add or 1 sub: 1, or −1 for operand b
// of a sub. binary_grad_d.wgsl starts from it; bias_act_grad_pair.wgsl, whose ops are sums, takes
// it alone (it binds no operands).
fn sumGradD(op: u32, which: u32) -> f32 {
  var d = 1.0;
  if (op == 1u && which == 1u) {
    d = -1.0;
  }
  return d;
}
