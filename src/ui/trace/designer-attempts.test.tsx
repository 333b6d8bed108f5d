import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TaskPanel } from './TaskPanel.tsx';

describe("the trace page's designer section for a provider-written design", () => {
  it('lists every attempt with its problems, the attempt used and the spend, output as text', () => {
    const trace = minimalTrace({
      query: 'q',
      designer: {
        kind: 'orchestrator',
        model: 'gpt-4.1-mini',
        parseErrors: [],
        provider: 'custom http://127.0.0.1:8787/v1',
        repairTurns: 2,
        attempts: [
          {
            rawOutput: '<agent><script>alert(1)</script>',
            problems: ['rule 4: two sinks', 'rule 2: Agent "<script>alert(1)</script>" is not known'],
            valid: false,
            promptTokens: 900,
            completionTokens: 100,
            costUsd: 0.0005,
            latencyMs: 1200,
          },
          {
            rawOutput: '<agent>ok</agent>',
            problems: [],
            valid: true,
            promptTokens: 1100,
            completionTokens: 90,
            costUsd: 0.0006,
            latencyMs: 800,
          },
        ],
        usedAttempt: 1,
        usage: { promptTokens: 2000, completionTokens: 190, costUsd: 0.0011, calls: 2 },
      },
    });
    const html = renderToStaticMarkup(<TaskPanel trace={trace} />);
    expect(html).toContain('data-testid="designer-attempts"');
    expect(html).toContain('2 of at most 3 · attempt 2 used');
    expect(html).toContain('2190 tokens in 2 calls · $0.0011');
    expect(html).toContain('rule 4: two sinks');
    expect(html.match(/data-testid="designer-attempt"/g)).toHaveLength(2);
    // Model output is text, never markup.
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('says none was valid, and why', () => {
    const trace = minimalTrace({
      query: 'q',
      designer: {
        kind: 'orchestrator',
        model: 'm',
        parseErrors: ['rule 6: cycle'],
        attempts: [
          {
            rawOutput: 'x',
            problems: ['rule 6: cycle'],
            valid: false,
            promptTokens: 1,
            completionTokens: 1,
            latencyMs: 1,
          },
        ],
        usedAttempt: null,
        failure: 'no valid design after 1 attempt (0 repair turns)',
      },
    });
    const html = renderToStaticMarkup(<TaskPanel trace={trace} />);
    expect(html).toContain('none valid');
    expect(html).toContain('no valid design after 1 attempt (0 repair turns)');
  });
});
