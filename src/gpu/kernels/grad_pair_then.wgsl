// Both gradients of a binary op, then the gradient of the op that made one of its operands, which
// the pair has just finished, in one dispatch (plan-fuse.ts): binary_grad_pair.wgsl's element i,
// then unary_grad.wgsl's (NEXT = 0; a scaled entropy added to the loss) or reduce_grad.wgsl's for
// a reduction over one column (NEXT = 1, so its row is i; edge log-probabilities summed into a
// step's), with the pair's ga (SIDE = 0) or gb (SIDE = 1) as its gy:
//   ga[i] += d_a · gy[i] (i < na);  gb[i] += d_b · gy[i] (i < nb);  gx[i] += d · g[i] (i < n)
// Each part's expression is its kernel's (binary_grad_d.wgsl, unary_grad_d.wgsl, reduce_grad_d.wgsl,
// which kernels.ts prepends), each keeps its own length (live rows, live.ts), and the last reads
// the pair's gradient only at its own element: the bits of the separate dispatches. The pair's
// bindings (0–5) and step are binary_grad_pair_io.wgsl's.
override SIDE: u32 = 0u;
override NEXT: u32 = 0u;
// The unary op (NEXT = 0) or the reduction (NEXT = 1).
override NOP: u32 = 0u;

struct P {
  na: u32,
  nb: u32,
  n: u32,
  alpha: f32,
}

// The next op's input and output, and its input's gradient.
@group(0) @binding(6) var<storage, read> x: array<f32>;
@group(0) @binding(7) var<storage, read> y: array<f32>;
@group(0) @binding(8) var<storage, read_write> gx: array<f32>;

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = gid.x + gid.y * nwg.x * 256u;
  pairAt(i);
  if (i < p.n) {
    var g = 0.0;
    if (SIDE == 1u) {
      g = gb[i];
    } else {
      g = ga[i];
    }
    var d = 0.0;
    if (NEXT == 1u) {
      d = reduceGradD(i, i, 1u, NOP);
    } else {
      d = unaryGradD(i, NOP, p.alpha);
    }
    gx[i] = gx[i] + d * g;
  }
}
