// log Bernoulli(t | sigmoid(v)) = t·v − softplus(v), softplus(v) = max(v, 0) + log(1 + e^−|v|) (no
// overflow for large |v|): one expression for bernoulli.wgsl and bernoulli_chain.wgsl.
fn bernoulliLog(v: f32, t: f32) -> f32 {
  return t * v - (max(v, 0.0) + log(1.0 + exp(-abs(v))));
}
