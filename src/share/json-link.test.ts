import { describe, expect, it } from 'vitest';
import { decodeJsonLink, encodeJsonLink } from './json-link.ts';

describe('JSON document links', () => {
  const doc = { format: 'baton.trainrun/1', curve: Array.from({ length: 50 }, (_, i) => i / 7), note: 'ok' };

  it('round-trips a document under its own fragment parameter', () => {
    const link = encodeJsonLink(doc, 'r');
    expect(link.fragment.startsWith('#r=1.')).toBe(true);
    expect(link.overBudget).toBe(false);
    const back = decodeJsonLink(`https://example.org/baton/${link.fragment}`, 'r');
    expect(back).toMatchObject({ ok: true, value: doc });
  });

  it('removes secrets before encoding', () => {
    const link = encodeJsonLink(
      { apiKey: 'sk-abcdefghijklmnopqrstuvwx', text: 'key sk-abcdefghijklmnopqrstuvwx' },
      'r',
    );
    const back = decodeJsonLink(link.fragment, 'r');
    expect(JSON.stringify(back)).not.toContain('sk-abcdefghijklmnopqrstuvwx');
  });

  it('explains what is wrong with a bad link and never throws', () => {
    const link = encodeJsonLink(doc, 'r');
    const cases: [string, RegExp][] = [
      [link.fragment.replace('#r=', '#t='), /no "#r=" part/],
      ['#r=abc', /no format version/],
      ['#r=2.abc', /link format 2/],
      ['#r=1.', /empty/],
      [link.fragment.slice(0, link.fragment.length - 6), /cut short|damaged|ends early/],
    ];
    for (const [input, want] of cases) {
      const r = decodeJsonLink(input, 'r');
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]?.message).toMatch(want);
    }
    expect(() => encodeJsonLink(doc, 'R!')).toThrow(/lowercase/);
  });
});
