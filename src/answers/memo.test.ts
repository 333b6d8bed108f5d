/**
 * The remembered readings of answers (normalisation, agreement keys) against their unremembered
 * forms: the same strings on first and later reads, for short and long texts.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { answerKey, answerKeyUncached, isRefusal } from './agreement.ts';
import { normalizeMathAnswer, normalizeMathAnswerUncached } from './math.ts';

function texts(pieces: readonly string[], count: number, seed: number): string[] {
  const rng = createRng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = '';
    for (let k = rng.int(14); k >= 0; k--) t += rng.pick(pieces);
    out.push(t);
  }
  return out;
}

describe('normalizeMathAnswer, remembered', () => {
  it('gives what the unremembered form gives, first and later calls, short and long texts', () => {
    const pieces = [
      '$',
      '\\frac',
      '{',
      '}',
      '1',
      '23',
      ',',
      ' ',
      '.',
      'x = ',
      '\\text{ cm}',
      '−',
      '%',
      '\\,',
      '°',
      'answer is ',
    ];
    const all = [...texts(pieces, 3000, 7), '7'.repeat(250), `$${'1,234'.repeat(60)}$`];
    for (let pass = 0; pass < 2; pass++)
      for (const t of all) expect(normalizeMathAnswer(t)).toBe(normalizeMathAnswerUncached(t));
    // The texts were not all alike after normalising.
    expect(new Set(all.map(normalizeMathAnswer)).size).toBeGreaterThan(500);
  });
});

describe('answerKey, remembered', () => {
  it('gives what the unremembered form gives, first and later calls, boxed or not, long texts', () => {
    const pieces = [
      '\\boxed{',
      '}',
      '{',
      '\\boxed',
      ' ',
      '\n',
      '\r\n',
      'REFUSE: ',
      'Line',
      '42',
      '\\fbox{',
      '',
    ];
    const long = `${'a line\n'.repeat(2000)}\\boxed{ Long }`;
    const all = [...texts(pieces, 5000, 11), long, `${long}\nlast`, '', '\n\n'];
    for (let pass = 0; pass < 2; pass++) for (const t of all) expect(answerKey(t)).toBe(answerKeyUncached(t));
    expect(answerKey(long)).toBe('long');
    expect(isRefusal('\\boxed{REFUSE: no}')).toBe(true);
    expect(new Set(all.map(answerKey)).size).toBeGreaterThan(500);
  });
});
