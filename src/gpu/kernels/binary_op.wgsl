// a op b for op 0 add, 1 sub, 2 mul: one expression for binary.wgsl and the fused kernels that
// end in a binary (reduce_binary.wgsl, bernoulli_chain.wgsl).
fn binaryOp(op: u32, a: f32, b: f32) -> f32 {
  switch op {
    case 1u: {
      return a - b;
    }
    case 2u: {
      return a * b;
    }
    default: {
      return a + b;
    }
  }
}
