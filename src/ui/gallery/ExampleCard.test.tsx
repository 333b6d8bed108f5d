import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ok } from '../../core/result.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { ExampleCard } from './ExampleCard.tsx';

const card = (correct: boolean | null, tags: string[]): string => {
  const t = minimalTrace({ query: 'Q', id: 'example-x' });
  const trace = { ...t, result: { ...t.result, correct } };
  return renderToStaticMarkup(
    <ExampleCard
      example={{ file: 'x.json', title: 'X', summary: 's', tags, trace: ok(trace) }}
      onOpen={() => undefined}
    />,
  );
};

const count = (html: string, word: string): number => html.split(`>${word}<`).length - 1;

describe('example card', () => {
  it('says "correct" once, as the badge, even when the example is tagged with it', () => {
    const html = card(true, ['debate', 'correct']);
    expect(count(html, 'correct')).toBe(1);
    expect(html).toContain('>debate<');
  });

  it('says "wrong" once too', () => {
    const html = card(false, ['wrong', 'mashost']);
    expect(count(html, 'wrong')).toBe(1);
    expect(html).toContain('>mashost<');
  });
});
