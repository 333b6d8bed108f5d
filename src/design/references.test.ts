import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { resolveReferences, resolveReferencesByPattern } from './references.ts';

const PIECES = [
  '${',
  '}',
  '{',
  '$',
  'a',
  'b1',
  'ñandú',
  '${a}',
  '${b1}',
  '${ñandú}',
  '${\\alpha}',
  '${x^2}',
  '${}',
  '${a.b:c-d}',
  '${🙂}',
  ' ',
  '\n',
  'text ',
];

describe('resolveReferences (pieces read once per input)', () => {
  it('fills in what the pattern’s own replace fills in, asking for the same ids in the same order', () => {
    const outputs = new Map<string, string>([
      ['a', 'A out'],
      ['ñandú', 'bird $& ${a} $1'],
      ['a.b:c-d', ''],
      ['🙂', 'smile'],
    ]);
    let filled = 0;
    for (let k = 0; k < 4000; k++) {
      const rng = createRng(k);
      let input = '';
      for (let n = rng.int(12); n >= 0; n--) input += rng.pick(PIECES);
      for (let pass = 0; pass < 2; pass++) {
        const asked: string[] = [];
        const want: string[] = [];
        const got = resolveReferences(input, (id) => (asked.push(id), outputs.get(id)));
        const expected = resolveReferencesByPattern(input, (id) => (want.push(id), outputs.get(id)));
        expect(got).toBe(expected);
        expect(asked).toEqual(want);
        if (asked.length > 0) filled++;
      }
    }
    expect(filled).toBeGreaterThan(2000);
  });
});
