// C[b] = op(A[b]) · op(B[b]) (C[b] += ... when ACCUMULATE = 1): layouts, bindings and store() are
// in matmul_block.wgsl, prepended by kernels.ts.
// For products with many 128x128 output tiles on a hardware GPU (matmulCall picks it): a
// workgroup of 16x16 invocations computes a 128x128 tile of C, each invocation an 8x8 register
// block: rows 4·ty + i and 64 + 4·ty + i, columns 4·tx + j and 64 + 4·tx + j (i, j < 4), so a row
// of invocations writes 16 neighbouring vec4s. Per K-tile of 8, the workgroup stages op(A)[128, 8]
// and op(B)[8, 128] in workgroup memory, k-major, as vec4s of 4 rows / 4 columns; each k-step
// then reads 4 vec4s and does 64 multiply-adds. Loads from storage run along the operand's
// contiguous axis in either layout.
// Products are summed in increasing k, from zero, one product at a time, and added to C once at
// the end: the order of matmul.wgsl and matmul_tiled.wgsl, so all three give the same bits. The
// last K-tile loops over its valid k only; rows and columns past the edge load zeros whose sums
// are never stored.
const TILE: u32 = 128u;
const TK: u32 = 8u;

// As[kk * 32 + q] = op(A)[row0 + 4q .. 4q + 3, k0 + kk]; Bs[kk * 32 + q] = op(B)[k0 + kk, col0 + 4q .. 4q + 3].
var<workgroup> As: array<vec4f, 256>;
var<workgroup> Bs: array<vec4f, 256>;

fn loadA(base: u32, r: u32, kk: u32) -> f32 {
  if (r >= d.m || kk >= d.k) {
    return 0.0;
  }
  if (TRANS_A == 1u) {
    return A[base + kk * d.m + r];
  }
  return A[base + r * d.k + kk];
}

fn loadB(base: u32, kk: u32, c: u32) -> f32 {
  if (c >= d.n || kk >= d.k) {
    return 0.0;
  }
  if (TRANS_B == 1u) {
    return B[base + c * d.k + kk];
  }
  return B[base + kk * d.n + c];
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) wid: vec3u, @builtin(local_invocation_id) lid: vec3u) {
  let tx = lid.x;
  let ty = lid.y;
  let t = ty * 16u + tx;
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  let bt = wid.z;
  let aBase = bt * d.m * d.k;
  let bBase = bt * d.k * d.n;
  // acc[2i + h][j]: row (h ? 64 : 0) + 4·ty + i ... stored as 8 rows × 2 vec4 (columns 4·tx, 64 + 4·tx).
  var c00 = vec4f(0.0); var c01 = vec4f(0.0);
  var c10 = vec4f(0.0); var c11 = vec4f(0.0);
  var c20 = vec4f(0.0); var c21 = vec4f(0.0);
  var c30 = vec4f(0.0); var c31 = vec4f(0.0);
  var c40 = vec4f(0.0); var c41 = vec4f(0.0);
  var c50 = vec4f(0.0); var c51 = vec4f(0.0);
  var c60 = vec4f(0.0); var c61 = vec4f(0.0);
  var c70 = vec4f(0.0); var c71 = vec4f(0.0);
  for (var k0 = 0u; k0 < d.k; k0 += TK) {
    // op(A)[128, 8]: invocation t stages 4 values. Stored [M][K]: row t / 2, k 4·(t % 2) + e;
    // stored [K][M]: k t / 32, rows 4·(t % 32) + e (one vec4 of As).
    if (TRANS_A == 1u) {
      let kk = t / 32u;
      let q = t % 32u;
      let r = row0 + 4u * q;
      As[kk * 32u + q] = vec4f(
        loadA(aBase, r, k0 + kk),
        loadA(aBase, r + 1u, k0 + kk),
        loadA(aBase, r + 2u, k0 + kk),
        loadA(aBase, r + 3u, k0 + kk),
      );
    } else {
      let r = t / 2u;
      let kb = 4u * (t % 2u);
      for (var e = 0u; e < 4u; e++) {
        As[(kb + e) * 32u + r / 4u][r % 4u] = loadA(aBase, row0 + r, k0 + kb + e);
      }
    }
    // op(B)[8, 128]. Stored [K][N]: k t / 32, columns 4·(t % 32) + e (one vec4 of Bs);
    // stored [N][K]: column t / 2, k 4·(t % 2) + e.
    if (TRANS_B == 1u) {
      let c = t / 2u;
      let kb = 4u * (t % 2u);
      for (var e = 0u; e < 4u; e++) {
        Bs[(kb + e) * 32u + c / 4u][c % 4u] = loadB(bBase, k0 + kb + e, col0 + c);
      }
    } else {
      let kk = t / 32u;
      let q = t % 32u;
      let c = col0 + 4u * q;
      Bs[kk * 32u + q] = vec4f(
        loadB(bBase, k0 + kk, c),
        loadB(bBase, k0 + kk, c + 1u),
        loadB(bBase, k0 + kk, c + 2u),
        loadB(bBase, k0 + kk, c + 3u),
      );
    }
    workgroupBarrier();
    let kn = min(TK, d.k - k0);
    for (var kk = 0u; kk < kn; kk++) {
      let o = kk * 32u;
      let a0 = As[o + ty];
      let a1 = As[o + 16u + ty];
      let b0 = Bs[o + tx];
      let b1 = Bs[o + 16u + tx];
      c00 += a0.x * b0; c01 += a0.x * b1;
      c10 += a0.y * b0; c11 += a0.y * b1;
      c20 += a0.z * b0; c21 += a0.z * b1;
      c30 += a0.w * b0; c31 += a0.w * b1;
      c40 += a1.x * b0; c41 += a1.x * b1;
      c50 += a1.y * b0; c51 += a1.y * b1;
      c60 += a1.z * b0; c61 += a1.z * b1;
      c70 += a1.w * b0; c71 += a1.w * b1;
    }
    workgroupBarrier();
  }
  let base = bt * d.m * d.n;
  let r0 = row0 + 4u * ty;
  let r1 = row0 + 64u + 4u * ty;
  let q0 = col0 + 4u * tx;
  let q1 = col0 + 64u + 4u * tx;
  store(base, r0, q0, c00); store(base, r0, q1, c01);
  store(base, r0 + 1u, q0, c10); store(base, r0 + 1u, q1, c11);
  store(base, r0 + 2u, q0, c20); store(base, r0 + 2u, q1, c21);
  store(base, r0 + 3u, q0, c30); store(base, r0 + 3u, q1, c31);
  store(base, r1, q0, c40); store(base, r1, q1, c41);
  store(base, r1 + 1u, q0, c50); store(base, r1 + 1u, q1, c51);
  store(base, r1 + 2u, q0, c60); store(base, r1 + 2u, q1, c61);
  store(base, r1 + 3u, q0, c70); store(base, r1 + 3u, q1, c71);
}
