// C[b] = op(A[b]) · op(B[b]) (C[b] += ... when ACCUMULATE = 1): layouts, bindings, the block's
// loads and its sum over k are in matmul_block.wgsl, prepended by kernels.ts.
// For small outputs on a hardware GPU, where the other matmul kernels leave most of the device idle
// while each invocation walks the whole of K, waiting on memory once per four k: here LK lanes
// (invocations) share one 4x4 block of C and split its K. Lane l sums k = l, l + LK, l + 2·LK, …
// in increasing k, loading four of its k before adding them; then the LK partial blocks are added
// in a fixed pairwise tree in workgroup memory (lane l += lane l + s for s = LK/2, …, 1) and lane 0
// writes the block. A workgroup of 64 invocations holds 64 / LK blocks; block i of the output is
// row block i / ⌈N/4⌉, column block i % ⌈N/4⌉; the batch index is workgroup_id.z.
// Precision: the summation order is fixed (the same bits on every adapter), but it is not the CPU
// reference's increasing k, so the last bits differ; held to the CPU backend at
// |Δ| ≤ 2⁻²²·√K·Σ_k|a·b| (+ 2⁻²³·|C|), as split-K products are (docs/compute-core.md, lanes.test.ts).
// Every invocation reaches every barrier: blocks past the output compute on clamped indices and
// store nothing.

// Lanes per block: 4, 8, 16, 32 or 64.
override LK: u32 = 16u;

// part[4·invocation + r]: row r of the invocation's partial block.
var<workgroup> part: array<vec4f, 256>;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_index) li: u32) {
  if (d.m == 0u || d.n == 0u || wid.z >= d.batch) {
    return;
  }
  let lane = li % LK;
  let bn = (d.n + 3u) / 4u;
  let block = wid.x * (64u / LK) + li / LK;
  let valid = block < ((d.m + 3u) / 4u) * bn;
  let row0 = min((block / bn) * 4u, d.m - 1u);
  let col0 = min((block % bn) * 4u, d.n - 1u);
  let acc = blockSum(operands(wid.z, row0, col0, d.k), lane, d.k, LK);
  let p = 4u * li;
  part[p] = acc[0];
  part[p + 1u] = acc[1];
  part[p + 2u] = acc[2];
  part[p + 3u] = acc[3];
  workgroupBarrier();
  for (var s = LK / 2u; s > 0u; s = s / 2u) {
    if (lane < s) {
      let q = p + 4u * s;
      part[p] = part[p] + part[q];
      part[p + 1u] = part[p + 1u] + part[q + 1u];
      part[p + 2u] = part[p + 2u] + part[q + 2u];
      part[p + 3u] = part[p + 3u] + part[q + 3u];
    }
    workgroupBarrier();
  }
  if (lane == 0u && valid) {
    let cBase = wid.z * d.m * d.n;
    let r0 = (block / bn) * 4u;
    let c0 = (block % bn) * 4u;
    store(cBase, r0, c0, part[p]);
    store(cBase, r0 + 1u, c0, part[p + 1u]);
    store(cBase, r0 + 2u, c0, part[p + 2u]);
    store(cBase, r0 + 3u, c0, part[p + 3u]);
  }
}
