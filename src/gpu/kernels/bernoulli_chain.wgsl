// A Bernoulli log-probability with what the policy's loss puts around it, in one dispatch
// (plan-fuse.ts): unary.wgsl's sigmoid that makes its target from its own logits in front (SIG = 1:
// the edge entropy's log π of the policy's own probabilities), bernoulli.wgsl, and binary.wgsl's
// product by a mask behind (MUL = 1):
//   t[i] = sigmoid(x[i]) (i < nSig);  y[i] = log Bernoulli(t[i] | sigmoid(x[i])) (i < n);
//   z[i] = y[i] · m[i] (i < nMul)
// Each part's expression is its kernel's (sigmoid.wgsl, bernoulli_log.wgsl, binary_op.wgsl, which
// kernels.ts prepends), each part keeps its own length (live rows, live.ts), and a part reads an
// earlier one's output only at its own element: the bits of the separate dispatches. A disabled
// part's bindings are a zero and a sink.
override SIG: u32 = 0u;
override MUL: u32 = 0u;

struct P {
  nSig: u32,
  n: u32,
  nMul: u32,
}

@group(0) @binding(0) var<uniform> p: P;
@group(0) @binding(1) var<storage, read> x: array<f32>;
// The target when SIG = 0.
@group(0) @binding(2) var<storage, read> tIn: array<f32>;
// The target, written, when SIG = 1.
@group(0) @binding(3) var<storage, read_write> t: array<f32>;
@group(0) @binding(4) var<storage, read_write> y: array<f32>;
@group(0) @binding(5) var<storage, read> m: array<f32>;
@group(0) @binding(6) var<storage, read_write> z: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  if (i >= max(max(p.nSig, p.n), p.nMul)) {
    return;
  }
  let v = x[i];
  if (SIG == 1u && i < p.nSig) {
    t[i] = sigmoid(v);
  }
  if (i < p.n) {
    var tv = 0.0;
    if (SIG == 1u) {
      tv = t[i];
    } else {
      tv = tIn[i];
    }
    y[i] = bernoulliLog(v, tv);
  }
  if (MUL == 1u && i < p.nMul) {
    z[i] = binaryOp(2u, y[i], m[i]);
  }
}
