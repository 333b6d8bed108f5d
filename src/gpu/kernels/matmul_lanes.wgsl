// C[b] = op(A[b]) · op(B[b]) (C[b] += ... when ACCUMULATE = 1): layouts, bindings, the block's
// loads and its sum over k are in matmul_block.wgsl, prepended by kernels.ts.
// For small outputs on a hardware GPU, where the other matmul kernels leave most of the device idle
// while each invocation walks the whole of K, waiting on memory once per four k: here LK lanes
// (invocations) share one 4x4 block of C and split its K. Lane l sums k = l, l + LK, l + 2·LK, …
// in increasing k, loading four of its k before adding them; then the LK partial blocks are added
// in a fixed pairwise tree (lane l += lane l + s for s = LK/2, …, 1: tree.wgsl's blockTree, in
// workgroup memory, or tree_sg.wgsl's with subgroup shuffles, the same bits) and lane 0 writes the
// block. A workgroup of 64 positions holds 64 / LK blocks; block i of the output is row block
// i / ⌈N/4⌉, column block i % ⌈N/4⌉; the batch index is workgroup_id.z.
// Precision: the summation order is fixed (the same bits on every adapter), but it is not the CPU
// reference's increasing k, so the last bits differ; held to the CPU backend at
// |Δ| ≤ 2⁻²²·√K·Σ_k|a·b| (+ 2⁻²³·|C|), as split-K products are (docs/compute-core.md, lanes.test.ts).
// Every invocation reaches every barrier: blocks past the output compute on clamped indices and
// store nothing.

// Lanes per block: 4, 8, 16, 32 or 64.
override LK: u32 = 16u;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3u, place: Place) {
  if (d.m == 0u || d.n == 0u || wid.z >= d.batch) {
    return;
  }
  let t = position(place);
  let lane = t % LK;
  let bn = (d.n + 3u) / 4u;
  let block = wid.x * (64u / LK) + t / LK;
  let valid = block < ((d.m + 3u) / 4u) * bn;
  let row0 = min((block / bn) * 4u, d.m - 1u);
  let col0 = min((block % bn) * 4u, d.n - 1u);
  let acc = blockTree(t, lane, LK, blockSum(operands(wid.z, row0, col0, d.k), lane, d.k, LK));
  if (lane == 0u && valid) {
    let cBase = wid.z * d.m * d.n;
    let r0 = (block / bn) * 4u;
    let c0 = (block % bn) * 4u;
    store(cBase, r0, c0, acc[0]);
    store(cBase, r0 + 1u, c0, acc[1]);
    store(cBase, r0 + 2u, c0, acc[2]);
    store(cBase, r0 + 3u, c0, acc[3]);
  }
}
