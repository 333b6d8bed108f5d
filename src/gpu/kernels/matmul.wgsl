// C[b] = op(A[b]) · op(B[b])   (C[b] += ... when ACCUMULATE = 1, used for gradients)
// op(A) is [M, K]: A is stored row-major [batch][M][K], or [batch][K][M] when TRANS_A = 1.
// op(B) is [K, N]: B is stored row-major [batch][K][N], or [batch][N][K] when TRANS_B = 1.
// C is row-major [batch][M][N].
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
override TRANS_A: u32 = 0u;
override TRANS_B: u32 = 0u;
override ACCUMULATE: u32 = 0u;
override K_FIXED: u32 = 0u;

struct Dims {
  m: u32,
  n: u32,
  k: u32,
  batch: u32,
}

@group(0) @binding(0) var<uniform> d: Dims;
@group(0) @binding(1) var<storage, read> A: array<f32>;
@group(0) @binding(2) var<storage, read> B: array<f32>;
@group(0) @binding(3) var<storage, read_write> C: array<f32>;

fn store(base: u32, row: u32, col0: u32, acc: vec4f) {
  if (row >= d.m) {
    return;
  }
  for (var j = 0u; j < 4u; j++) {
    let col = col0 + j;
    if (col < d.n) {
      let i = base + row * d.n + col;
      if (ACCUMULATE == 1u) {
        C[i] = C[i] + acc[j];
      } else {
        C[i] = acc[j];
      }
    }
  }
}

// op(A)[rows of ai, kk] for the offset ka = kk·sak, and op(B)[kk, columns of bi] for kb = kk·sbk.
fn colA(ai: vec4u, ka: u32) -> vec4f {
  return vec4f(A[ai.x + ka], A[ai.y + ka], A[ai.z + ka], A[ai.w + ka]);
}

fn rowB(bi: vec4u, kb: u32) -> vec4f {
  return vec4f(B[bi.x + kb], B[bi.y + kb], B[bi.z + kb], B[bi.w + kb]);
}

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
  // op(A)[row, kk] = A[aBase + row·sar + kk·sak]; op(B)[kk, col] = B[bBase + kk·sbk + col·sbc].
  var sar = K;
  var sak = 1u;
  if (TRANS_A == 1u) {
    sar = 1u;
    sak = d.m;
  }
  var sbk = d.n;
  var sbc = 1u;
  if (TRANS_B == 1u) {
    sbk = 1u;
    sbc = K;
  }
  let aBase = bt * d.m * K;
  let bBase = bt * K * d.n;
  let lastRow = d.m - 1u;
  let lastCol = d.n - 1u;
  let ai = vec4u(
    aBase + row0 * sar,
    aBase + min(row0 + 1u, lastRow) * sar,
    aBase + min(row0 + 2u, lastRow) * sar,
    aBase + min(row0 + 3u, lastRow) * sar,
  );
  let bi = vec4u(
    bBase + col0 * sbc,
    bBase + min(col0 + 1u, lastCol) * sbc,
    bBase + min(col0 + 2u, lastCol) * sbc,
    bBase + min(col0 + 3u, lastCol) * sbc,
  );
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  // Four k at a time: the loads of all four first, then the multiply-adds in increasing k, the same
  // operations in the same order as one k at a time (the same bits). A real GPU then waits on
  // memory once per four k rather than once per k: with one k per iteration a 64-long K took about
  // as long as 64 round trips to memory (an NVIDIA H200 profile, docs/benchmarks.md).
  var kk = k0;
  for (; kk + 4u <= k1; kk += 4u) {
    let av0 = colA(ai, kk * sak);
    let bv0 = rowB(bi, kk * sbk);
    let av1 = colA(ai, (kk + 1u) * sak);
    let bv1 = rowB(bi, (kk + 1u) * sbk);
    let av2 = colA(ai, (kk + 2u) * sak);
    let bv2 = rowB(bi, (kk + 2u) * sbk);
    let av3 = colA(ai, (kk + 3u) * sak);
    let bv3 = rowB(bi, (kk + 3u) * sbk);
    acc0 += av0.x * bv0;
    acc1 += av0.y * bv0;
    acc2 += av0.z * bv0;
    acc3 += av0.w * bv0;
    acc0 += av1.x * bv1;
    acc1 += av1.y * bv1;
    acc2 += av1.z * bv1;
    acc3 += av1.w * bv1;
    acc0 += av2.x * bv2;
    acc1 += av2.y * bv2;
    acc2 += av2.z * bv2;
    acc3 += av2.w * bv2;
    acc0 += av3.x * bv3;
    acc1 += av3.y * bv3;
    acc2 += av3.z * bv3;
    acc3 += av3.w * bv3;
  }
  for (; kk < k1; kk++) {
    let av = colA(ai, kk * sak);
    let bv = rowB(bi, kk * sbk);
    acc0 += av.x * bv;
    acc1 += av.y * bv;
    acc2 += av.z * bv;
    acc3 += av.w * bv;
  }
  let cBase = gid.z * d.m * d.n;
  store(cBase, row0, col0, acc0);
  store(cBase, row0 + 1u, col0, acc1);
  store(cBase, row0 + 2u, col0, acc2);
  store(cBase, row0 + 3u, col0, acc3);
}
