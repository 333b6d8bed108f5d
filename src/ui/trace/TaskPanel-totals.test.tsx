import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import { TaskPanel } from './TaskPanel.tsx';

const totalsOf = (trace: Trace): string => {
  const html = renderToStaticMarkup(<TaskPanel trace={trace} />);
  const at = html.indexOf('data-testid="totals"');
  return html.slice(at, html.indexOf('</section>', at)).replace(/<[^>]+>/g, ' ');
};

describe('trace totals', () => {
  it('say "not recorded" for an import whose source recorded no tokens, cost or time', () => {
    const imported: Trace = {
      ...minimalTrace({ query: 'q', id: 'slide' }),
      execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    };
    const text = totalsOf(imported);
    expect(text.match(/not recorded/g)).toHaveLength(5);
    expect(text).not.toMatch(/\$0|0 ms|\b0 in/);
  });

  it('keep the real zeros of a run made here', () => {
    const run: Trace = {
      ...minimalTrace({ query: 'q', id: 'run' }),
      execution: { backend: { kind: 'simulated', seed: 1 }, status: 'completed', events: [] },
    };
    const text = totalsOf(run);
    expect(text).not.toContain('not recorded');
    expect(text).toContain('$0');
    expect(text).toContain('0 ms');
  });
});
