import { describe, expect, it } from 'vitest';
import { csrOf } from './csr.ts';

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
});
