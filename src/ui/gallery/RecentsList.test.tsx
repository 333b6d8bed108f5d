import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { recentEntryOf } from '../../store/slices/library.ts';
import { listRows, RecentsList, ROW_HEIGHT, visibleRange } from './RecentsList.tsx';

describe('recent traces', () => {
  it('show an imported trace without a date as "date unknown", not as 1970', () => {
    const undated = { ...minimalTrace({ query: 'Q', id: 'undated' }), createdAtKnown: false };
    const html = renderToStaticMarkup(
      <RecentsList
        rows={listRows([recentEntryOf(undated, 'file', '2026-01-01T00:00:00.000Z')])}
        onRemove={() => undefined}
      />,
    );
    expect(html).toContain('>date unknown<');
    expect(html).not.toContain('1970');
  });
});

describe('the virtualised list', () => {
  it('draws only the rows in view, however many traces it holds', () => {
    const entries = Array.from({ length: 5_000 }, (_, i) =>
      recentEntryOf(
        minimalTrace({ query: `Q${i}`, id: `t${i}` }),
        'file',
        '2026-01-01T00:00:00.000Z',
        'big.json',
      ),
    );
    const html = renderToStaticMarkup(<RecentsList rows={listRows(entries)} onRemove={() => undefined} />);
    const drawn = html.match(/data-testid="recent-item"/g) ?? [];
    expect(drawn.length).toBeGreaterThan(10);
    expect(drawn.length).toBeLessThan(40);
    expect(html).toContain('data-total="5000"');
    expect(html).toContain(`height:${5_001 * ROW_HEIGHT}px`);
    expect(html).toContain('data-count="5000"');
  });

  it('computes the window from the scroll position', () => {
    expect(visibleRange(0, 640, 5_001)).toEqual({ first: 0, last: 16 + 12 });
    const mid = visibleRange(100_000, 640, 5_001);
    expect(mid.first).toBe(2_500 - 12);
    expect(mid.last).toBe(2_516 + 12);
    expect(visibleRange(1e9, 640, 10).last).toBe(9);
  });
});
