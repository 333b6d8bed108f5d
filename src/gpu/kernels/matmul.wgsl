// C[b] = op(A[b]) · op(B[b]) (C[b] += ... when ACCUMULATE = 1): layouts, bindings, the block's
// loads and its sum over k are in matmul_block.wgsl, prepended by kernels.ts.
// Each invocation computes a 4x4 block of C in registers (16 multiply-adds per 8 loads); a
// workgroup of 8x8 invocations covers a 32x32 tile; the batch index is global_invocation_id.z.
// No workgroup memory and no barriers: software adapters pay a coroutine switch per barrier (a
// 32x32 shared-memory tiling measured 1.1–4x slower on SwiftShader), and for the small matrices of
// a policy network the caches already hold the operands. No branch in the inner loop either: a
// block that hangs over the edge reads the last row / column again (in bounds) and store() drops
// those sums (about 2x faster than bounds checks per load on SwiftShader). Products are summed in
// increasing k, as the CPU reference does.
// SPLIT_K = 1 (planned as `matmul_splitk`, the first pass of a split-K product; matmul_splitk_sum.wgsl
// is the second): for a small output and a long K (weight gradients op(A)ᵀ·dC over the live rows),
// K is cut into chunks of d.batch consecutive k (64: short chains of dependent loads; on a real GPU
// chunks of 256 left each of the few workgroups waiting on memory 256 times in a row), and
// invocation z = global_invocation_id.z sums chunk z of a batch-1 product, in increasing k from 0,
// into C[z] (the chunk scratch [chunks][m][n]; ACCUMULATE = 0). d.k is the live K: the plan sizes
// the scratch for the padded K and dispatches ⌈live K / chunk⌉ chunks (live.ts). Precision: one
// chunk gives this kernel's bits; from two on the last bits differ, held to the CPU backend at
// |Δ| ≤ 2⁻²²·√K·Σ_k|a·b| (+ 2⁻²³·|C|): docs/compute-core.md and splitk.test.ts.
// K_FIXED > 0: K is that constant rather than d.k (same loop, same bits), so a compiler may unroll
// the K loop; not planned yet, timed against d.k by the device benchmark (bench/device/small.ts).
// Never with SPLIT_K, whose K is the live rows.
override SPLIT_K: u32 = 0u;
override K_FIXED: u32 = 0u;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  // Split-K: chunk gid.z of K, batch 0. Otherwise: all of K, batch gid.z.
  let split = SPLIT_K == 1u;
  let K = select(d.k, K_FIXED, K_FIXED != 0u);
  let bt = select(gid.z, 0u, split);
  let k0 = select(0u, gid.z * d.batch, split);
  let k1 = select(K, min(K, k0 + d.batch), split);
  if (row0 >= d.m || col0 >= d.n || (!split && bt >= d.batch) || (split && k0 >= K)) {
    return;
  }
  let acc = blockSum(operands(bt, row0, col0, K), k0, k1, 1u);
  let cBase = gid.z * d.m * d.n;
  store(cBase, row0, col0, acc[0]);
  store(cBase, row0 + 1u, col0, acc[1]);
  store(cBase, row0 + 2u, col0, acc[2]);
  store(cBase, row0 + 3u, col0, acc[3]);
}
