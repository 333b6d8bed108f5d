/**
 * Row lists for the scatter kernel (scatter_add_rows.wgsl): the positions i of a u32 index grouped
 * by their value, in compressed sparse row form. Built on the host whenever an index input is set
 * (every index in a graph is an input), in O(count + rows) by a counting sort, so the kernel sums
 * each destination row's own sources only — instead of every destination scanning every index —
 * and in increasing i, the order the earlier scanning kernels used: same sums, bit for bit.
 */
export interface Csr {
  /** u32[rows + 1]: the sources of row r are sources[offsets[r] … offsets[r + 1]). */
  offsets: Uint32Array;
  /** u32[max(1, count)]: the positions i with idx[i] = r, increasing within each row. */
  sources: Uint32Array;
}

/** Groups the positions of `idx` by value for rows 0 … rows − 1; values ≥ rows are dropped. */
export function csrOf(idx: ArrayLike<number>, rows: number): Csr {
  const offsets = new Uint32Array(rows + 1);
  for (let i = 0; i < idx.length; i++) {
    const r = idx[i] as number;
    if (r < rows) offsets[r + 1] = (offsets[r + 1] as number) + 1;
  }
  for (let r = 0; r < rows; r++) offsets[r + 1] = (offsets[r + 1] as number) + (offsets[r] as number);
  // The kernel never reads past offsets[rows]; one spare word keeps the buffer non-empty.
  const sources = new Uint32Array(Math.max(1, idx.length));
  const next = offsets.slice(0, rows);
  for (let i = 0; i < idx.length; i++) {
    const r = idx[i] as number;
    if (r < rows) {
      sources[next[r] as number] = i;
      next[r] = (next[r] as number) + 1;
    }
  }
  return { offsets, sources };
}
