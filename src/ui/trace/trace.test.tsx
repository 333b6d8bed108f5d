import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import { buildReplay, replayStateAt } from '../../view/replay.ts';
import { Inspector } from './Inspector.tsx';
import { TaskPanel } from './TaskPanel.tsx';
import { Timeline } from './Timeline.tsx';

/** A MAS-Orchestra case-page run: one agent, the outcome and a graded answer, no events. */
function importedRun(): Trace {
  const t = minimalTrace({ query: 'Find m + n.', groundTruth: '113' });
  return {
    ...t,
    designer: { kind: 'imported', tool: 'MAS-Orchestra' },
    design: {
      dom: 'low',
      agents: [{ id: 'solver', type: 'CoTAgent', description: 'Solves it.', input: '', params: {} }],
      edges: [],
    },
    execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    result: { finalAnswer: 'So m + n = \\boxed{113}.', answerAgent: 'solver', correct: true },
  };
}

function render(trace: Trace, part: 'timeline' | 'inspector'): string {
  const replay = buildReplay(trace);
  const state = replayStateAt(replay, trace, replay.length);
  const props = { trace, replay, state, selectedId: 'solver', onSelect: () => undefined };
  return renderToStaticMarkup(part === 'timeline' ? <Timeline {...props} /> : <Inspector {...props} />);
}

describe('an imported run recorded without events', () => {
  it('the timeline says the source recorded no timings, not that the design never ran', () => {
    const out = render(importedRun(), 'timeline');
    expect(out).toContain('MAS-Orchestra recorded the run&#x27;s outcome (completed)');
    expect(out).not.toContain('was not run');
  });

  it('the inspector shows the final agent done, with the final answer as its output', () => {
    const out = render(importedRun(), 'inspector');
    expect(out).toContain('● done');
    expect(out).toContain('recorded only the outcome');
    expect(out).toContain('m + n');
  });

  it('a trace that was never run still says so', () => {
    const trace: Trace = {
      ...importedRun(),
      execution: { backend: { kind: 'none' }, status: 'not-run', events: [] },
      result: { finalAnswer: null, correct: null },
    };
    expect(render(trace, 'timeline')).toContain('this design was not run');
  });
});

describe('the final answer in the task panel', () => {
  const paragraph =
    'All arithmetic is modulo 23. The Barns are 19, the Goats 12 and the Sheep 20, so the answer is ' +
    '\\boxed{19, 12, 20}.';
  const run = (answerAgent?: string): Trace => {
    const t = minimalTrace({ query: 'How many?', groundTruth: '19, 12, 20' });
    return {
      ...t,
      task: { ...t.task, groundTruths: ['19', '12', '20'] },
      result: { finalAnswer: paragraph, correct: true, ...(answerAgent ? { answerAgent } : {}) },
    };
  };
  const finalBox = (html: string): string => {
    const at = html.indexOf('data-testid="final-answer"');
    return html.slice(at, html.indexOf('class="answer-label"', at));
  };

  it('shows the answer the grader read, not the paragraph around it', () => {
    const box = finalBox(renderToStaticMarkup(<TaskPanel trace={run('final')} />));
    expect(box).toContain('data-extracted="true"');
    expect(box).toContain('19, 12, 20');
    expect(box).not.toContain('modulo');
    expect(box).not.toContain('boxed');
    // The full text is the final agent's output, one click away in the inspector.
    expect(box).toContain('data-testid="final-answer-full"');
  });

  it('keeps the full text in the panel when no agent gave the answer', () => {
    const box = finalBox(renderToStaticMarkup(<TaskPanel trace={run()} />));
    // A closed disclosure (it renders its text when opened).
    expect(box).toContain('<details class="answer-full"><summary>Full final output</summary>');
  });
});

describe("the orchestrator designer's panel", () => {
  it('shows dtype, device, timings and constraint stats as text', () => {
    const t = minimalTrace({ query: 'How many?' });
    const trace: Trace = {
      ...t,
      designer: {
        kind: 'orchestrator',
        model: 'baton-orchestrator-tiny',
        parseErrors: [],
        dtype: 'q8',
        device: 'wasm',
        deviceReason: 'asked for',
        dom: 'high',
        constrained: true,
        stopReason: 'eos',
        constraint: { steps: 120, maskedSteps: 80, forcedTokens: 40, maskMs: 12.5 },
        timings: { loadMs: 850, firstTokenMs: 40, generateMs: 1500, tokens: 120, tokensPerSecond: 80 },
      },
    };
    const out = renderToStaticMarkup(<TaskPanel trace={trace} />);
    const panel = out.slice(out.indexOf('data-testid="designer"'));
    expect(panel).toContain('q8 · wasm');
    expect(panel).toContain('asked for');
    expect(panel).toContain('constrained to the design grammar');
    expect(panel).toContain('load 850 ms · first token 40 ms · 120 tokens in 1.50 s · 80.0 tokens/s');
    expect(panel).toContain('steps 120 · maskedSteps 80 · forcedTokens 40 · maskMs 12.5');
    expect(panel).toContain('eos');
  });
});
