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
  /**
   * u32[rows + 1]: row r's sources are split into chunks of at most CHUNK, numbered
   * chunks[r] … chunks[r + 1] (a row without sources has none); chunks[rows] is the total.
   */
  chunks: Uint32Array;
  /** u32[maxChunks(count, rows)]: the row of each chunk (the rest unused). */
  chunkRow: Uint32Array;
}

/**
 * Sources per chunk of the two-pass scatter (scatter_partial.wgsl, then scatter_add_rows.wgsl;
 * the kernels hard-code the same number). A row with at most CHUNK sources is one chunk, summed in
 * increasing position as before: bit for bit the CPU's sum. Longer rows are summed per chunk, then
 * the chunks in order: another order of the same terms.
 */
export const CHUNK = 64;

/** An upper bound of the chunks of `count` sources over `rows` rows (at least 1). */
export function maxChunks(count: number, rows: number): number {
  return Math.max(1, Math.ceil(count / CHUNK) + Math.min(rows, count));
}

/**
 * Room for the lists of up to `capacity` positions over `rows` rows, filled by `csrOf` again and
 * again without allocating: a typed array of this size costs the host microseconds to allocate and
 * counts against the garbage collector's external memory, and the lists are rebuilt for several
 * index inputs before every pass and update.
 */
export interface CsrScratch {
  rows: number;
  capacity: number;
  offsets: Uint32Array;
  sources: Uint32Array;
  chunks: Uint32Array;
  chunkRow: Uint32Array;
  /** Each row's next free place while sources are placed. */
  cursor: Uint32Array;
}

export function csrScratch(capacity: number, rows: number): CsrScratch {
  return {
    rows,
    capacity,
    offsets: new Uint32Array(rows + 1),
    sources: new Uint32Array(Math.max(1, capacity)),
    chunks: new Uint32Array(rows + 1),
    chunkRow: new Uint32Array(maxChunks(capacity, rows)),
    cursor: new Uint32Array(rows),
  };
}

/**
 * Groups the positions of `idx` by value for rows 0 … rows − 1; values ≥ rows are dropped. Runs for
 * every index input of every pass (six per pass of the policy's trainer, up to 67,584 positions at
 * minibatch 1024), so it is written for speed: counts, prefix sums, one placing pass, and the chunk
 * rows written in one loop rather than a fill per row (`npm run bench:gpu-host` shows its share of
 * a pass). With `into` (room for at least idx.length positions over `rows` rows) the lists are
 * views of its arrays, which they overwrite: the same numbers as new lists (csr.test.ts).
 */
export function csrOf(idx: ArrayLike<number>, rows: number, into?: CsrScratch): Csr {
  const n = idx.length;
  if (into && (into.rows !== rows || into.capacity < n))
    throw new Error(
      `csrOf: room for ${into.capacity} positions over ${into.rows} rows, not ${n} over ${rows}`,
    );
  const room = into ?? csrScratch(n, rows);
  const offsets = room.offsets;
  if (into) offsets.fill(0);
  for (let i = 0; i < n; i++) {
    const r = idx[i] as number;
    if (r < rows) offsets[r + 1] = (offsets[r + 1] as number) + 1;
  }
  for (let r = 0; r < rows; r++) offsets[r + 1] = (offsets[r + 1] as number) + (offsets[r] as number);
  // The kernel never reads past offsets[rows]; one spare word keeps the buffer non-empty.
  const sources = into ? room.sources.subarray(0, Math.max(1, n)) : room.sources;
  if (into && n === 0) sources[0] = 0;
  const next = room.cursor;
  next.set(offsets.subarray(0, rows));
  for (let i = 0; i < n; i++) {
    const r = idx[i] as number;
    if (r < rows) {
      const at = next[r] as number;
      sources[at] = i;
      next[r] = at + 1;
    }
  }
  // Places no kept position reached read as 0, as in new lists.
  if (into) sources.fill(0, offsets[rows] as number);
  const chunks = room.chunks;
  const chunkRow = into ? room.chunkRow.subarray(0, maxChunks(n, rows)) : room.chunkRow;
  let c = 0;
  for (let r = 0; r < rows; r++) {
    const k = Math.ceil(((offsets[r + 1] as number) - (offsets[r] as number)) / CHUNK);
    for (let j = 0; j < k; j++) chunkRow[c++] = r;
    chunks[r + 1] = c;
  }
  // Unused chunk rows read as 0, as in new lists.
  if (into) chunkRow.fill(0, c);
  return { offsets, sources, chunks, chunkRow };
}
