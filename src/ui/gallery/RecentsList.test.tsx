import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { recentEntryOf } from '../../store/slices/library.ts';
import { listRows, RecentsList } from './RecentsList.tsx';

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
