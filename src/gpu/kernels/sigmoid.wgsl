// The logistic function without overflow for large |z| (kernels.ts prepends this file to every
// kernel that takes a sigmoid, so that each computes it with the same expression).
fn sigmoid(z: f32) -> f32 {
  if (z >= 0.0) {
    return 1.0 / (1.0 + exp(-z));
  }
  let e = exp(z);
  return e / (1.0 + e);
}
