import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { answerKey, isRefusal } from './agreement.ts';

/**
 * The policy encoder's answer key as it shipped with encoder versions 2 and 3, kept verbatim as
 * the reference: trained checkpoints saw features computed with it, so `answerKey` and
 * `isRefusal` must give the same strings on every input.
 */
const reference = {
  lastBoxed(text: string): string | null {
    let found: string | null = null;
    let from = 0;
    for (;;) {
      const at = text.indexOf('\\boxed', from);
      if (at < 0) return found;
      let i = at + 6;
      while (i < text.length && /\s/.test(text.charAt(i))) i++;
      from = at + 6;
      if (text.charAt(i) !== '{') continue;
      let depth = 0;
      for (let j = i; j < text.length; j++) {
        const ch = text.charAt(j);
        if (ch === '\\') j++;
        else if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) {
          found = text.slice(i + 1, j);
          from = j + 1;
          break;
        }
      }
    }
  },
  normalizeAnswer(answer: string): string {
    const lines = answer.split('\n').filter((l) => l.trim() !== '');
    const core = reference.lastBoxed(answer) ?? lines[lines.length - 1] ?? '';
    return core.toLowerCase().replace(/\s+/g, ' ').trim();
  },
  isRefusal(answer: string): boolean {
    return /^\s*refuse/i.test(answer) || reference.normalizeAnswer(answer).startsWith('refuse');
  },
};

/** Pieces that exercise every branch of a box reader: commands, braces, escapes, blanks, refusals. */
const PIECES = [
  '\\boxed',
  '\\boxed{',
  '\\fbox{',
  '\\boxedfoo',
  '\\boxed ',
  '{',
  '}',
  '\\{',
  '\\}',
  '\\',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  'x',
  '42',
  '\\frac{1}{2}',
  'REFUSE: ',
  'refuse',
  ' Refuse',
  'Answer: ',
  '$',
  'Ünïcödé',
  '',
];

function generated(count: number, seed: number): string[] {
  const rng = createRng(seed);
  const out: string[] = [];
  for (let n = 0; n < count; n++) {
    const length = rng.int(14);
    let s = '';
    for (let k = 0; k < length; k++) s += rng.pick(PIECES);
    out.push(s);
  }
  return out;
}

describe('answerKey and isRefusal (the policy features of intermediate answers)', () => {
  const inputs = [
    ...generated(20_000, 7),
    '\\boxed{5} \\boxed{}',
    '\\fbox{3}\nlast line',
    'so \\boxed 5\nend',
    '\\boxed\\boxed{5}',
    '\\fbox{ \\boxed{1} }',
    '\\boxed{\\boxed{2}}',
    '\\boxed{5} and \\boxed{6',
    '\\boxed{REFUSE: no}',
  ];

  it('give the same strings as the encoder reference on 20,000 generated answers', () => {
    const differing = inputs.filter(
      (s) => answerKey(s) !== reference.normalizeAnswer(s) || isRefusal(s) !== reference.isRefusal(s),
    );
    expect(differing).toEqual([]);
  });

  it('read a box differently from the graders where the features demand it', () => {
    // Empty last box: the key is empty (the graders skip it and take the 5).
    expect(answerKey('\\boxed{5} \\boxed{}')).toBe('');
    // `\fbox` and the brace-less form are not boxes here: the last line is the key.
    expect(answerKey('\\fbox{3}\nLast Line')).toBe('last line');
    expect(answerKey('so \\boxed 5\nend')).toBe('end');
    expect(answerKey('A: \\boxed{X}')).toBe(answerKey('a:\n\\boxed{  x }'));
    expect(isRefusal('\\boxed{REFUSE: missing value}')).toBe(true);
    expect(isRefusal('I refuse to guess, but the answer is 4')).toBe(false);
  });
});
