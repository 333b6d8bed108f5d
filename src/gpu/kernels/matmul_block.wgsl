// Shared by the matmul kernels (kernels.ts prepends it, with matmul_sum.wgsl): the layouts,
// bindings and overrides, a store of four neighbouring columns, and where a 4x4 block's operands
// start (matmul_sum.wgsl sums the block over a run of k).
// C[b] = op(A[b]) · op(B[b])   (C[b] += ... when ACCUMULATE = 1, used for gradients)
// op(A) is [M, K]: A is stored row-major [batch][M][K], or [batch][K][M] when TRANS_A = 1.
// op(B) is [K, N]: B is stored row-major [batch][K][N], or [batch][N][K] when TRANS_B = 1.
// C is row-major [batch][M][N].
override TRANS_A: u32 = 0u;
override TRANS_B: u32 = 0u;
override ACCUMULATE: u32 = 0u;

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

fn readA(i: u32) -> f32 {
  return A[i];
}

fn readB(i: u32) -> f32 {
  return B[i];
}

// Row `row` of C at columns col0, col0 + step, col0 + 2·step, col0 + 3·step (those past N dropped;
// rows past M too).
fn storeStep(base: u32, row: u32, col0: u32, step: u32, acc: vec4f) {
  if (row >= d.m) {
    return;
  }
  for (var j = 0u; j < 4u; j++) {
    let col = col0 + j * step;
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

// Four neighbouring columns of row `row` from col0.
fn store(base: u32, row: u32, col0: u32, acc: vec4f) {
  storeStep(base, row, col0, 1u, acc);
}

fn operands(bt: u32, row0: u32, col0: u32, K: u32) -> Operands {
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
  let a = vec4u(
    aBase + row0 * sar,
    aBase + min(row0 + 1u, lastRow) * sar,
    aBase + min(row0 + 2u, lastRow) * sar,
    aBase + min(row0 + 3u, lastRow) * sar,
  );
  let b = vec4u(
    bBase + col0 * sbc,
    bBase + min(col0 + 1u, lastCol) * sbc,
    bBase + min(col0 + 2u, lastCol) * sbc,
    bBase + min(col0 + 3u, lastCol) * sbc,
  );
  return Operands(a, b, sak, sbk);
}
