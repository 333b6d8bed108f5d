// C[b] = op(A[b]) · op(B[b])   (C[b] += ... when ACCUMULATE = 1, used for gradients)
// op(A) is [M, K]: A is stored row-major [batch][M][K], or [batch][K][M] when TRANS_A = 1.
// op(B) is [K, N]: B is stored row-major [batch][K][N], or [batch][N][K] when TRANS_B = 1.
// C is row-major [batch][M][N].
// Each invocation computes a 4x4 block of C in registers (16 multiply-adds per 8 loads); a
// workgroup of 8x8 invocations covers a 32x32 tile; the batch index is global_invocation_id.z.
// No workgroup memory and no barriers: software adapters pay a coroutine switch per barrier,
// and for the small matrices of a policy network the caches already hold the operands.
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

// op(A)[row, kk], zero past the last row.
fn loadA(base: u32, row: u32, kk: u32) -> f32 {
  if (row >= d.m) {
    return 0.0;
  }
  if (TRANS_A == 1u) {
    return A[base + kk * d.m + row];
  }
  return A[base + row * d.k + kk];
}

// op(B)[kk, col], zero past the last column.
fn loadB(base: u32, kk: u32, col: u32) -> f32 {
  if (col >= d.n) {
    return 0.0;
  }
  if (TRANS_B == 1u) {
    return B[base + col * d.k + kk];
  }
  return B[base + kk * d.n + col];
}

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

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) gid: vec3u) {
  let row0 = gid.y * 4u;
  let col0 = gid.x * 4u;
  let bt = gid.z;
  if (row0 >= d.m || col0 >= d.n || bt >= d.batch) {
    return;
  }
  let aBase = bt * d.m * d.k;
  let bBase = bt * d.k * d.n;
  var acc0 = vec4f(0.0);
  var acc1 = vec4f(0.0);
  var acc2 = vec4f(0.0);
  var acc3 = vec4f(0.0);
  for (var kk = 0u; kk < d.k; kk++) {
    let bv = vec4f(loadB(bBase, kk, col0), loadB(bBase, kk, col0 + 1u), loadB(bBase, kk, col0 + 2u), loadB(bBase, kk, col0 + 3u));
    acc0 += loadA(aBase, row0, kk) * bv;
    acc1 += loadA(aBase, row0 + 1u, kk) * bv;
    acc2 += loadA(aBase, row0 + 2u, kk) * bv;
    acc3 += loadA(aBase, row0 + 3u, kk) * bv;
  }
  let cBase = bt * d.m * d.n;
  store(cBase, row0, col0, acc0);
  store(cBase, row0 + 1u, col0, acc1);
  store(cBase, row0 + 2u, col0, acc2);
  store(cBase, row0 + 3u, col0, acc3);
}
