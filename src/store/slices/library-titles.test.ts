import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import {
  cutAtWord,
  listTitle,
  plainText,
  shownTitle,
  traceDetail,
  traceListTitle,
} from './library-titles.ts';

const AIME =
  'Let $ABC$ be a triangle inscribed in circle $\\omega$. Let the tangents to $\\omega$ at $B$ and $C$ ' +
  'intersect at point $D$, and let $\\overline{AD}$ intersect $\\omega$ at $P$. If $AB=5$, $BC=9$, and ' +
  '$AC=10$, $AP$ can be written as the form $\\frac{m}{n}$, where $m$ and $n$ are relatively prime.';

describe('plainText', () => {
  it('drops math delimiters and writes common LaTeX as characters', () => {
    expect(plainText('circle $\\omega$ and $\\overline{AD}$')).toBe('circle ω and AD');
    expect(plainText('$\\frac{m}{n}$, $\\sqrt{2}$, $x \\le 3$')).toBe('m/n, √2, x ≤ 3');
    expect(plainText('$\\left(\\dfrac{1}{2}\\right)^2$ km $\\text{per hour}$')).toBe('(1/2)^2 km per hour');
  });

  it('drops \\(…\\) and \\[…\\] delimiters without joining words', () => {
    expect(plainText('Let \\(O=(0,0)\\) and \\[z\\]where')).toBe('Let O=(0,0) and z where');
  });

  it('keeps escaped dollars and braces, and drops a command cut off at the end', () => {
    expect(plainText('costs \\$5 for \\{a\\}')).toBe('costs $5 for {a}');
    expect(plainText('tangents to $\\omeg')).toBe('tangents to');
  });

  it('removes markdown emphasis and code marks', () => {
    expect(plainText('**Bold** and `code`')).toBe('Bold and code');
  });
});

describe('cutAtWord', () => {
  it('cuts at the last space before the limit, without trailing punctuation', () => {
    expect(cutAtWord('one two three four', 12)).toBe('one two…');
    expect(cutAtWord('alpha, beta gamma', 12)).toBe('alpha, beta…');
    expect(cutAtWord('short', 12)).toBe('short');
  });

  it('cuts a single long word where it must', () => {
    expect(cutAtWord('abcdefghijklmnop', 8)).toBe('abcdefgh…');
  });
});

describe('listTitle', () => {
  it('takes the words from the question when the title is its start, cut mid-word', () => {
    const title = AIME.slice(0, 80);
    expect(title.endsWith('$\\omeg')).toBe(true);
    const shown = listTitle(title, AIME, 90);
    expect(shown).toBe(
      'Let ABC be a triangle inscribed in circle ω. Let the tangents to ω at B and C intersect…',
    );
    expect(shown).not.toMatch(/[$\\]/);
  });

  it('keeps a title of its own', () => {
    expect(listTitle('Debate: two roles argue', 'What is the area?')).toBe('Debate: two roles argue');
  });
});

describe('traceListTitle', () => {
  const slide = (row: number, step: number): Trace => {
    const t = minimalTrace({ query: AIME });
    return {
      ...t,
      title: AIME.slice(0, 80),
      task: { ...t.task, source: { kind: 'dataset', name: 'aime24', item: `row ${row}` } },
      designer: { kind: 'imported', tool: 'MAS-Orchestra', trainingStep: step },
    };
  };

  it('tells apart imported traces of the same question by row and step', () => {
    expect(traceDetail(slide(3, 130))).toBe('aime24 · row 3 · step 130');
    const a = traceListTitle(slide(3, 130));
    const b = traceListTitle(slide(4, 60));
    expect(a).not.toBe(b);
    expect(a).toMatch(/^Let ABC be a triangle .*… · aime24 · row 3 · step 130$/);
  });

  it('adds nothing to traces made here, and keeps a long title of their own whole', () => {
    const t = { ...minimalTrace({ query: 'Q' }), title: 'Run · depth 6 (seed 3) · 4 agents' };
    expect(traceListTitle(t)).toBe('Run · depth 6 (seed 3) · 4 agents');
    const run = {
      ...t,
      title:
        'Run · depth 3 (seed 1) · design of “Parallel branches: two independent…” (4 agents) · simulated',
    };
    expect(run.title.length).toBeGreaterThan(90);
    expect(traceListTitle(run)).toBe(run.title);
  });
});

describe('shownTitle', () => {
  it('shows a saved list title whole, details included', () => {
    const long = `${'word '.repeat(12).trim()}… · breadth 2 · row 0 · step 250`;
    expect(long.length).toBeGreaterThan(90);
    expect(shownTitle(long, 'another question')).toBe(long);
  });

  it('cleans a raw title saved by an earlier version, from its question', () => {
    expect(shownTitle(AIME.slice(0, 80), AIME)).toBe(listTitle(AIME.slice(0, 80), AIME));
    expect(shownTitle(AIME.slice(0, 80), AIME)).not.toContain('$');
  });
});
