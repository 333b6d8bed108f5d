// Both gradients of y = a op b in one dispatch (plan-fuse.ts): what binary_grad.wgsl does with
// WHICH = 0 and then WHICH = 1, each with its own length (live rows, live.ts):
//   ga[i] += d_a · gy[i] for i < n_a;  gb[i] += d_b · gy[i] for i < n_b
// with d_a = 1 (add, sub) or b[i] (mul), d_b = 1 (add), −1 (sub) or a[i] (mul): the expression
// of binary_grad.wgsl (binary_grad_d.wgsl, which kernels.ts prepends to both), once per operand,
// so the same bits. ga and gb are different buffers. Its bindings and loop body are
// binary_grad_pair_io.wgsl's (kernels.ts prepends it).
struct P {
  na: u32,
  nb: u32,
}

@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  pairAt(gid.x + gid.y * nwg.x * 256u);
}
