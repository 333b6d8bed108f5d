import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Distribution } from './Distribution.tsx';
import { StepList } from './StepList.tsx';
import type { BuildFrame } from '../../store/construction.ts';
import type { ConstructionStep } from '../../core/trace.ts';

const names = ['Solver', 'Verifier', 'DELETE', 'EXIT'];

describe('build page components', () => {
  it('draws masked actions as 0, disabled, and marks the pick', () => {
    const out = renderToStaticMarkup(
      <Distribution
        names={names}
        hints={['solves', 'checks']}
        distribution={[0.75, 0.25, 0, 0]}
        mask={[1, 1, 0, 0]}
        picked={1}
        previewRole={0}
        disabled={false}
        onPick={() => undefined}
      />,
    );
    expect(out.match(/data-testid="dist-bar"/g)).toHaveLength(4);
    expect(out).toContain(
      'data-action="DELETE" data-p="0" data-masked="true" aria-pressed="false" disabled=""',
    );
    expect(out).toContain('data-action="Verifier" data-p="0.25" data-masked="false" aria-pressed="true"');
    expect(out).toContain('>0.750<');
  });

  it('lists steps with chooser, log-probability and reward, undone ones dimmed, text as text', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const frame = (index: number, chooser: 'policy' | 'user'): BuildFrame =>
      ({
        state: {} as BuildFrame['state'],
        design: null,
        correct: true,
        pending: false,
        step: {
          index,
          action: {
            kind: 'add',
            role: 'Solver',
            agentId: `solver-${index + 1}`,
            agentType: 'CoTAgent',
            links: [],
          },
          roleDistribution: [{ action: 'Solver', p: 0.5 }],
          edgeProbabilities: [],
          logProb: Math.log(0.5),
          chooser,
          intermediateAnswer: hostile,
          intermediateCorrect: true,
          actionReward: 1,
        },
      }) as BuildFrame;
    const frames = [
      { state: {} as BuildFrame['state'], design: null, correct: false, pending: false, step: null },
      frame(0, 'policy'),
      frame(1, 'user'),
    ];
    const out = renderToStaticMarkup(<StepList frames={frames} cursor={1} executed />);
    expect(out.match(/data-testid="step-item"/g)).toHaveLength(1);
    expect(out.match(/data-testid="step-undone"/g)).toHaveLength(1);
    expect(out).toContain('data-chooser="user"');
    expect(out).toContain('log p = -0.693');
    expect(out).toContain('r = +1.00');
    expect(out).not.toContain('<img');
  });

  it('shows what each executed step cost, and why a run gave no answer, as text', () => {
    const step = (i: number, run: NonNullable<ConstructionStep['intermediateRun']>): BuildFrame =>
      ({
        state: {} as BuildFrame['state'],
        design: null,
        correct: null,
        pending: false,
        step: {
          index: i,
          action: {
            kind: 'add',
            role: 'Solver',
            agentId: `solver-${i + 1}`,
            agentType: 'CoTAgent',
            links: [],
          },
          roleDistribution: [{ action: 'Solver', p: 1 }],
          edgeProbabilities: [],
          logProb: 0,
          chooser: 'policy',
          intermediateAnswer: i === 0 ? 'so \\boxed{12}' : null,
          intermediateCorrect: i === 0 ? true : null,
          intermediateRun: run,
          actionReward: i === 0 ? 1 : null,
        },
      }) as BuildFrame;
    const frames = [
      { state: {} as BuildFrame['state'], design: null, correct: false, pending: false, step: null },
      step(0, {
        backend: 'remote',
        status: 'completed',
        calls: 2,
        cachedCalls: 3,
        promptTokens: 100,
        completionTokens: 20,
        costUsd: 0.0012,
      }),
      step(1, {
        backend: 'remote',
        status: 'skipped',
        calls: 0,
        cachedCalls: 0,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        problem: "not run: the construction's budget <b>spent</b>",
      }),
    ];
    const out = renderToStaticMarkup(<StepList frames={frames} cursor={2} executed />);
    expect(out).toContain('2 sent · 3 cached · 120 tok · $0.0012');
    expect(out).toContain('data-status="skipped"');
    expect(out).toContain('&lt;b&gt;spent&lt;/b&gt;');
    expect(out).not.toContain('<b>spent');
    expect(out).toContain('>12<');
  });
});
