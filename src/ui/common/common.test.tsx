import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { fail } from '../../core/result.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { ExampleCard } from '../gallery/ExampleCard.tsx';
import { listRows, RecentsList } from '../gallery/RecentsList.tsx';
import { recentEntryOf } from '../../store/slices/library.ts';
import { traceFileName, traceJson } from '../share/download.ts';
import { CorrectnessBadge } from './Badges.tsx';
import { ProblemAlert } from './ProblemAlert.tsx';

const HOSTILE = '<img src=x onerror="window.__pwned=1">';

describe('untrusted text is rendered as text', () => {
  it('in problem alerts, which are alerts', () => {
    const out = renderToStaticMarkup(
      <ProblemAlert title="Import failed" problems={[{ code: 'E_JSON', message: HOSTILE }]} />,
    );
    expect(out).toContain('role="alert"');
    expect(out).not.toContain('<img');
    expect(out).toContain('&lt;img src=x');
  });

  it('in example cards and recent traces', () => {
    const trace = { ...minimalTrace({ query: HOSTILE, id: 'x' }), title: HOSTILE };
    const card = renderToStaticMarkup(
      <ExampleCard
        example={{
          file: 'x.json',
          title: HOSTILE,
          summary: HOSTILE,
          tags: [HOSTILE],
          trace: fail({ code: 'E', message: HOSTILE }),
        }}
        onOpen={() => undefined}
      />,
    );
    const list = renderToStaticMarkup(
      <RecentsList
        rows={listRows([recentEntryOf(trace, 'file', '2026-01-01T00:00:00.000Z', HOSTILE)])}
        onRemove={() => undefined}
      />,
    );
    for (const out of [card, list]) {
      expect(out).not.toContain('<img');
      expect(out).toContain('&lt;img');
    }
    expect(card).toContain('role="alert"');
  });
});

describe('badges and downloads', () => {
  it('labels correctness in words, not only colour', () => {
    expect(renderToStaticMarkup(<CorrectnessBadge correct={true} />)).toContain('correct');
    expect(renderToStaticMarkup(<CorrectnessBadge correct={false} />)).toContain('wrong');
    expect(renderToStaticMarkup(<CorrectnessBadge correct={null} />)).toContain('not graded');
  });

  it('names the download after the title and strips secrets from it', () => {
    const key = 'sk-proj-' + 'Q9w8E7r6T5y4U3i2O1p0'.repeat(2);
    const trace = {
      ...minimalTrace({ query: `Use Authorization: Bearer ${key} to call it`, id: 't-1' }),
      title: 'Débat: 2 rôles!',
    };
    expect(traceFileName(trace)).toBe('debat-2-roles.baton.json');
    expect(traceFileName({ ...trace, title: '???' })).toBe('t-1.baton.json');
    const json = traceJson(trace);
    expect(json).not.toContain(key);
    expect(JSON.parse(json)).toMatchObject({ id: 't-1', format: 'baton.trace/1' });
  });
});
