import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Distribution } from './Distribution.tsx';
import { StepList } from './StepList.tsx';
import type { BuildFrame } from '../../store/slices/build.ts';

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
        evaluating: false,
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
      { state: {} as BuildFrame['state'], design: null, correct: false, evaluating: false, step: null },
      frame(0, 'policy'),
      frame(1, 'user'),
    ];
    const out = renderToStaticMarkup(<StepList frames={frames} cursor={1} simulated />);
    expect(out.match(/data-testid="step-item"/g)).toHaveLength(1);
    expect(out.match(/data-testid="step-undone"/g)).toHaveLength(1);
    expect(out).toContain('data-chooser="user"');
    expect(out).toContain('log p = -0.693');
    expect(out).toContain('r = +1.00');
    expect(out).not.toContain('<img');
  });
});
