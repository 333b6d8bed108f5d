/**
 * The CPU backend's matrix products (part of cpu/ops.ts's kernels): `matmul` in its four
 * transpose forms and `matmulSharedPrefix`, which sums the rows' shared one-hot prefixes once.
 */
type F32 = Float32Array;

/**
 * C[b] (+)= op(A[b])·op(B[b]) with op(A) [m,k], op(B) [k,n], C [m,n]. The loop forms keep the
 * innermost loop on contiguous memory: when B's rows run along n (no transB), C's row i gathers
 * a·B[p, :] four rows p at a time (one pass over C per 4 values of p); when B is transposed, each
 * C[i, j] is a dot product of A's row i (copied contiguous first) with B's row j, four j at a time.
 *
 * Four values of A that are all exactly 0 are skipped (the policy's features are mostly one-hot
 * and flags): with finite B they would add exact zeros, and a running sum that starts at +0 and
 * only ever has values added is never −0, so the result is the same bit for bit.
 */
export function matmul(
  A: F32,
  B: F32,
  C: F32,
  batch: number,
  m: number,
  n: number,
  k: number,
  transA: boolean,
  transB: boolean,
  accumulate: boolean,
): void {
  if (!accumulate) C.fill(0, 0, batch * m * n);
  // op(A)[i, p] = A[ao + i·sai + p·sap]
  const sai = transA ? 1 : k;
  const sap = transA ? m : 1;
  const arow = new Float32Array(k);
  for (let bi = 0; bi < batch; bi++) {
    const ao = bi * m * k;
    const bo = bi * k * n;
    const co = bi * m * n;
    if (transA && !transB) {
      // op(A)ᵀ·B with A stored [k, m] (weight gradients xᵀ·dy, k = batch): p outermost so A's rows
      // and four rows of B are read contiguously and C (the small [m, n] gradient) stays in cache;
      // the i-outer order would stream all of B (k·n floats) once per row of C.
      let p = 0;
      for (; p + 3 < k; p += 4) {
        const a0r = ao + p * m;
        const b0 = bo + p * n;
        const b1 = b0 + n;
        const b2 = b1 + n;
        const b3 = b2 + n;
        for (let i = 0; i < m; i++) {
          const a0 = A[a0r + i] as number;
          const a1 = A[a0r + m + i] as number;
          const a2 = A[a0r + 2 * m + i] as number;
          const a3 = A[a0r + 3 * m + i] as number;
          if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
          const crow = co + i * n;
          for (let j = 0; j < n; j++) {
            C[crow + j] =
              (C[crow + j] as number) +
              a0 * (B[b0 + j] as number) +
              a1 * (B[b1 + j] as number) +
              a2 * (B[b2 + j] as number) +
              a3 * (B[b3 + j] as number);
          }
        }
      }
      for (; p < k; p++) {
        const b0 = bo + p * n;
        for (let i = 0; i < m; i++) {
          const a = A[ao + p * m + i] as number;
          const crow = co + i * n;
          for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
        }
      }
      continue;
    }
    for (let i = 0; i < m; i++) {
      const crow = co + i * n;
      const ai = ao + i * sai;
      if (!transB) {
        let p = 0;
        for (; p + 3 < k; p += 4) {
          const a0 = A[ai + p * sap] as number;
          const a1 = A[ai + (p + 1) * sap] as number;
          const a2 = A[ai + (p + 2) * sap] as number;
          const a3 = A[ai + (p + 3) * sap] as number;
          if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
          const b0 = bo + p * n;
          const b1 = b0 + n;
          const b2 = b1 + n;
          const b3 = b2 + n;
          for (let j = 0; j < n; j++) {
            C[crow + j] =
              (C[crow + j] as number) +
              a0 * (B[b0 + j] as number) +
              a1 * (B[b1 + j] as number) +
              a2 * (B[b2 + j] as number) +
              a3 * (B[b3 + j] as number);
          }
        }
        for (; p < k; p++) {
          const a = A[ai + p * sap] as number;
          const b0 = bo + p * n;
          for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
        }
      } else {
        for (let p = 0; p < k; p++) arow[p] = A[ai + p * sap] as number;
        let j = 0;
        for (; j + 3 < n; j += 4) {
          const r0 = bo + j * k;
          const r1 = r0 + k;
          const r2 = r1 + k;
          const r3 = r2 + k;
          let s0 = 0;
          let s1 = 0;
          let s2 = 0;
          let s3 = 0;
          for (let p = 0; p < k; p++) {
            const a = arow[p] as number;
            s0 += a * (B[r0 + p] as number);
            s1 += a * (B[r1 + p] as number);
            s2 += a * (B[r2 + p] as number);
            s3 += a * (B[r3 + p] as number);
          }
          C[crow + j] = (C[crow + j] as number) + s0;
          C[crow + j + 1] = (C[crow + j + 1] as number) + s1;
          C[crow + j + 2] = (C[crow + j + 2] as number) + s2;
          C[crow + j + 3] = (C[crow + j + 3] as number) + s3;
        }
        for (; j < n; j++) {
          const r0 = bo + j * k;
          let s = 0;
          for (let p = 0; p < k; p++) s += (arow[p] as number) * (B[r0 + p] as number);
          C[crow + j] = (C[crow + j] as number) + s;
        }
      }
    }
  }
}

/**
 * The distinct prefixes among an input's rows (the first `d` columns, compared as bits): each row's
 * prefix id, and a registry of the prefixes seen so far, kept across calls so that a prefix keeps
 * its id. When the registry reaches `limit` prefixes it starts over with a new `epoch` (ids of the
 * old epoch mean nothing any more; partial sums keyed by them are dropped).
 */
export class PrefixIndex {
  /** Prefix id per row (the first `rows` entries are current). */
  ids = new Int32Array(0);
  rows = 0;
  epoch = 0;
  private byHash = new Map<number, { prefix: Uint32Array; id: number }[]>();
  private next = 0;

  constructor(
    readonly d: number,
    private readonly limit = 4096,
  ) {}

  /** Assigns ids to the first m rows of A (rows of k floats). */
  index(A: F32, m: number, k: number): void {
    const d = this.d;
    if (this.next + m > this.limit) {
      this.byHash = new Map();
      this.next = 0;
      this.epoch++;
    }
    if (this.ids.length < m) this.ids = new Int32Array(m);
    const bits = new Uint32Array(A.buffer, A.byteOffset, A.length);
    for (let i = 0; i < m; i++) {
      const ao = i * k;
      // Rows of one task often come one after another: the previous row's prefix first.
      if (i > 0) {
        const po = ao - k;
        let p = 0;
        while (p < d && bits[ao + p] === bits[po + p]) p++;
        if (p === d) {
          this.ids[i] = this.ids[i - 1] as number;
          continue;
        }
      }
      // The hash only picks a bucket (every candidate is compared in full): every fourth column.
      let h = 0x811c9dc5;
      for (let p = 0; p < d; p += 4) h = Math.imul(h ^ (bits[ao + p] as number), 0x01000193);
      let list = this.byHash.get(h);
      let id = -1;
      if (list) {
        for (const e of list) {
          let same = true;
          for (let p = 0; p < d; p++) {
            if (e.prefix[p] !== bits[ao + p]) {
              same = false;
              break;
            }
          }
          if (same) {
            id = e.id;
            break;
          }
        }
      }
      if (id < 0) {
        if (!list) {
          list = [];
          this.byHash.set(h, list);
        }
        id = this.next++;
        list.push({ prefix: bits.slice(ao, ao + d), id });
      }
      this.ids[i] = id;
    }
    this.rows = m;
  }
}

/** One product's partial sums over the prefix columns, by prefix id, for one B and one index epoch. */
export interface PrefixPartials {
  epoch: number;
  rows: (Float32Array | undefined)[];
}

/**
 * C = A·B (one batch, neither operand transposed) for `m` rows, where rows of A often share their
 * first `d` columns (d a multiple of 4; `ids` says which rows share, see PrefixIndex): the sum
 * over those columns is computed once per distinct prefix and kept in `partials` for later calls
 * with the same B (the caller empties it when B changes). Bit for bit `matmul`: that kernel stores
 * each row's running sum in f32 after every 4 columns, so the sum after the first d columns is one
 * f32 row whatever follows, and the rest of the row continues from it in the same order.
 */
export function matmulSharedPrefix(
  A: F32,
  B: F32,
  C: F32,
  m: number,
  n: number,
  k: number,
  d: number,
  ids: Int32Array,
  partials: (Float32Array | undefined)[],
): void {
  const row = new Float32Array(n);
  for (let i = 0; i < m; i++) {
    const ao = i * k;
    const id = ids[i] as number;
    let hit = partials[id];
    if (!hit) {
      row.fill(0);
      for (let p = 0; p < d; p += 4) {
        const a0 = A[ao + p] as number;
        const a1 = A[ao + p + 1] as number;
        const a2 = A[ao + p + 2] as number;
        const a3 = A[ao + p + 3] as number;
        const b0 = p * n;
        const b1 = b0 + n;
        const b2 = b1 + n;
        const b3 = b2 + n;
        for (let j = 0; j < n; j++) {
          row[j] =
            (row[j] as number) +
            a0 * (B[b0 + j] as number) +
            a1 * (B[b1 + j] as number) +
            a2 * (B[b2 + j] as number) +
            a3 * (B[b3 + j] as number);
        }
      }
      hit = Float32Array.from(row);
      partials[id] = hit;
    }
    const crow = i * n;
    C.set(hit, crow);
    let p = d;
    for (; p + 3 < k; p += 4) {
      const a0 = A[ao + p] as number;
      const a1 = A[ao + p + 1] as number;
      const a2 = A[ao + p + 2] as number;
      const a3 = A[ao + p + 3] as number;
      if (a0 === 0 && a1 === 0 && a2 === 0 && a3 === 0) continue;
      const b0 = p * n;
      const b1 = b0 + n;
      const b2 = b1 + n;
      const b3 = b2 + n;
      for (let j = 0; j < n; j++) {
        C[crow + j] =
          (C[crow + j] as number) +
          a0 * (B[b0 + j] as number) +
          a1 * (B[b1 + j] as number) +
          a2 * (B[b2 + j] as number) +
          a3 * (B[b3 + j] as number);
      }
    }
    for (; p < k; p++) {
      const a = A[ao + p] as number;
      const b0 = p * n;
      for (let j = 0; j < n; j++) C[crow + j] = (C[crow + j] as number) + a * (B[b0 + j] as number);
    }
  }
}
