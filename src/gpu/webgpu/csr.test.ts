import { describe, expect, it } from 'vitest';
import { CHUNK, csrOf, csrScratch, maxChunks } from './csr.ts';

/** The lists as plain arrays per row, for readable expectations. */
const lists = (idx: number[], rows: number): number[][] => {
  const { offsets, sources } = csrOf(Uint32Array.from(idx), rows);
  return Array.from({ length: rows }, (_, r) => [...sources.subarray(offsets[r], offsets[r + 1])]);
};

describe('csrOf groups index positions by row', () => {
  it('keeps each row’s sources in increasing position, whatever the order of the indices', () => {
    expect(lists([2, 0, 2, 1, 0, 2], 3)).toEqual([[1, 4], [3], [0, 2, 5]]);
  });

  it('gives rows without sources an empty list, including the first and the last', () => {
    expect(lists([2, 2, 1], 4)).toEqual([[], [2], [0, 1], []]);
    expect(csrOf(Uint32Array.from([2, 2, 1]), 4).offsets).toEqual(Uint32Array.from([0, 0, 1, 3, 3]));
  });

  it('puts every source in one row when all indices repeat', () => {
    expect(lists(new Array(6).fill(1), 3)).toEqual([[], [0, 1, 2, 3, 4, 5], []]);
  });

  it('drops indices past the last row, as the kernels that scanned the indices did', () => {
    const { offsets, sources } = csrOf(Uint32Array.from([0, 9, 1, 3]), 2);
    expect([...offsets]).toEqual([0, 1, 2]);
    expect([...sources.subarray(0, 2)]).toEqual([0, 2]);
  });

  it('keeps buffers non-empty for an empty index', () => {
    const { offsets, sources } = csrOf(new Uint32Array(0), 2);
    expect([...offsets]).toEqual([0, 0, 0]);
    expect(sources.length).toBe(1);
  });

  it('cuts each row into chunks of at most CHUNK sources and names each chunk’s row', () => {
    const idx = Uint32Array.from([...new Array(CHUNK + 1).fill(2), 0, ...new Array(CHUNK).fill(3)]);
    const { chunks, chunkRow } = csrOf(idx, 5);
    // Row 0: one chunk, row 1: none, row 2: two (65 sources), row 3: one (exactly CHUNK), row 4: none.
    expect([...chunks]).toEqual([0, 1, 1, 3, 4, 4]);
    expect([...chunkRow.subarray(0, 4)]).toEqual([0, 2, 2, 3]);
    expect(chunkRow.length).toBeGreaterThanOrEqual(4);
    expect(maxChunks(idx.length, 5)).toBe(chunkRow.length);
  });

  it('gives the same lists built in a room used before, for indices of any length up to its room', () => {
    const rows = 40;
    const room = csrScratch(3 * CHUNK, rows);
    let seed = 7;
    const next = (m: number): number => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % m;
    };
    // Long and short, with rows past the last (dropped), and empty: each after the others' leftovers.
    for (let k = 0; k < 60; k++) {
      const n = k % 7 === 0 ? 0 : next(3 * CHUNK + 1);
      const spread = k % 3 === 0 ? 3 : rows + 5;
      const idx = Uint32Array.from({ length: n }, () => next(spread));
      const fresh = csrOf(idx, rows);
      const reused = csrOf(idx, rows, room);
      for (const key of ['offsets', 'sources', 'chunks', 'chunkRow'] as const)
        expect([...reused[key]], `${key} of index ${k}`).toEqual([...fresh[key]]);
    }
  });

  it('refuses a room too small or for other rows', () => {
    expect(() => csrOf(new Uint32Array(9), 4, csrScratch(8, 4))).toThrow(/room for 8 positions/);
    expect(() => csrOf(new Uint32Array(2), 5, csrScratch(8, 4))).toThrow(/over 4 rows/);
  });
});
