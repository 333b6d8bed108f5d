import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ok } from '../../core/result.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { recentEntryOf } from '../../store/slices/library.ts';
import { ExampleCard } from './ExampleCard.tsx';
import { listRows, RecentsList, traceDate } from './RecentsList.tsx';

describe('example cards', () => {
  it('are links to the trace, so they open in a new tab', () => {
    const trace = minimalTrace({ query: 'Q', id: 'example-debate' });
    const html = renderToStaticMarkup(
      <ExampleCard
        example={{ file: 'debate.json', title: 'Debate', summary: 's', tags: [], trace: ok(trace) }}
        onOpen={() => undefined}
      />,
    );
    expect(html).toContain('<a href="#/trace/example-debate"');
    expect(html).not.toContain('<button');
  });
});

describe('recent traces', () => {
  it('say "date unknown" for the epoch or no date, and when the trace came in', () => {
    expect(traceDate('1970-01-01T00:00:00.000Z')).toBe('date unknown');
    expect(traceDate('')).toBe('date unknown');
    expect(traceDate(undefined)).toBe('date unknown');
    expect(traceDate('2025-11-03T10:00:00.000Z')).toMatch(/2025/);
    const entry = recentEntryOf(minimalTrace({ query: 'Q', id: 'x' }), 'file', '2026-01-02T10:00:00.000Z');
    const html = renderToStaticMarkup(<RecentsList rows={listRows([entry])} onRemove={() => undefined} />);
    expect(html).toContain('date unknown');
    expect(html).not.toContain('1970');
    const at = html.indexOf('data-testid="recent-added"');
    const added = html.slice(at, html.indexOf('</td>', at));
    expect(added).toContain('imported');
    expect(added).toContain('2026');
  });

  it('show the row and step of an imported slide in full, however long the title', () => {
    const query = `The number of each Bakery's Muffin equals 12. ${'More words follow here. '.repeat(6)}`;
    const base = minimalTrace({ query, id: 'x' });
    const slide = {
      ...base,
      title: query.slice(0, 80),
      task: {
        ...base.task,
        source: { kind: 'masbench' as const, axis: 'breadth' as const, value: 2, taskId: 'row 0' },
      },
      designer: { kind: 'imported' as const, tool: 'MAS-Orchestra', trainingStep: 250 },
    };
    const html = renderToStaticMarkup(
      <RecentsList
        rows={listRows([recentEntryOf(slide, 'file', '2026-01-02T10:00:00.000Z')])}
        onRemove={() => undefined}
      />,
    );
    const text = html.slice(html.indexOf('<a href'), html.indexOf('</a>')).replace(/<[^>]+>/g, '');
    expect(text).toMatch(/\w… · breadth 2 · row 0 · step 250$/);
  });

  it('show raw LaTeX titles as plain text cut at a word', () => {
    const query = `Let $ABC$ be a triangle inscribed in circle $\\omega$. ${'Then more words follow here. '.repeat(4)}`;
    const trace = { ...minimalTrace({ query, id: 'x' }), title: query.slice(0, 80) };
    const html = renderToStaticMarkup(
      <RecentsList
        rows={listRows([recentEntryOf(trace, 'file', '2026-01-02T10:00:00.000Z')])}
        onRemove={() => undefined}
      />,
    );
    const text = html.slice(html.indexOf('<a href'), html.indexOf('</a>')).replace(/<[^>]+>/g, '');
    expect(text).toContain('Let ABC be a triangle inscribed in circle ω.');
    expect(text).not.toMatch(/[$\\]/);
    expect(text).toMatch(/ [A-Za-z]+…$/);
  });
});
