import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ConstructionStep } from '../../core/trace.ts';
import type { BuildFrame } from '../../store/construction.ts';
import type { StepReward } from '../../store/slices/build-reward.ts';
import { PendingPick } from './NextStep.tsx';
import { StepList } from './StepList.tsx';

const names = ['Solver', 'Verifier', 'DELETE', 'EXIT'];

function frame(index: number, patch: Partial<ConstructionStep>): BuildFrame {
  return {
    state: {} as BuildFrame['state'],
    design: null,
    correct: false,
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
      chooser: 'policy',
      ...patch,
    },
  } as BuildFrame;
}

const EMPTY: BuildFrame = {
  state: {} as BuildFrame['state'],
  design: null,
  correct: false,
  pending: false,
  step: null,
};

describe('the Build history', () => {
  it('labels steps sampled, greedy or you', () => {
    const frames = [EMPTY, frame(0, {}), frame(1, {}), frame(2, { chooser: 'user' })];
    const out = renderToStaticMarkup(
      <StepList frames={frames} cursor={3} executed={false} decodings={['sampled', 'greedy', 'greedy']} />,
    );
    const chips = [...out.matchAll(/data-testid="step-chooser">([^<]*)</g)].map((m) => m[1]);
    expect(chips).toEqual(['sampled', 'greedy', 'you']);
  });

  it('explains an n/a reward and breaks a reward into its terms', () => {
    const graded = frame(0, {
      intermediateAnswer: '12',
      intermediateCorrect: true,
      intermediateRun: {
        backend: 'simulated',
        status: 'completed',
        calls: 1,
        cachedCalls: 0,
        promptTokens: 10,
        completionTokens: 5,
        costUsd: 0,
      },
      actionReward: 1,
    });
    const failed = frame(1, {
      intermediateAnswer: null,
      intermediateCorrect: null,
      actionReward: null,
      intermediateRun: {
        backend: 'remote',
        status: 'failed',
        calls: 1,
        cachedCalls: 0,
        promptTokens: 0,
        completionTokens: 0,
        costUsd: 0,
        problem: 'HTTP 500',
      },
    });
    const rewards: StepReward[] = [
      { value: 1, why: null, change: 'wrong → right', formula: '+gain = +1.000', returnFromHere: 1 },
      {
        value: null,
        why: 'no answer to grade: the partial MAS run was failed (HTTP 500)',
        change: null,
        formula: null,
        returnFromHere: null,
      },
    ];
    const out = renderToStaticMarkup(
      <StepList frames={[EMPTY, graded, failed]} cursor={2} executed rewards={rewards} />,
    );
    expect(out).toContain('r_t = +gain = +1.000');
    expect(out).toContain('wrong → right');
    expect(out).toContain('Σ_k≥t γ^(k−t) r_k = 1.000');
    expect(out).toContain('n/a — no answer to grade: the partial MAS run was failed (HTTP 500)');
    expect(out).toMatch(/data-testid="step-reward-why">[^]*?no answer to grade<\/span>/);
  });

  it('says why r is n/a when the partial designs are not executed', () => {
    const out = renderToStaticMarkup(<StepList frames={[EMPTY, frame(0, {})]} cursor={1} executed />);
    expect(out).toContain('not executed: r = n/a');
  });
});

describe('the pick waiting for Step', () => {
  it('says what will be taken and that Step takes it', () => {
    const out = renderToStaticMarkup(
      <PendingPick
        pick={{ action: 1, links: ['solver-1'] }}
        names={names}
        roleCount={2}
        previewRole="Verifier"
      />,
    );
    expect(out).toContain('Picked, not taken yet:');
    expect(out).toContain('ADD Verifier');
    expect(out).toContain('links from solver-1');
    expect(out).toContain('Step');
  });

  it('keeps toggled links when DELETE is picked, and says so', () => {
    const out = renderToStaticMarkup(
      <PendingPick pick={{ action: 2, links: ['a', 'b'] }} names={names} roleCount={2} previewRole={null} />,
    );
    expect(out).toContain('DELETE takes no links; your links are kept');
  });

  it('shows nothing without a pick', () => {
    const out = renderToStaticMarkup(
      <PendingPick pick={{ action: null, links: null }} names={names} roleCount={2} previewRole="Solver" />,
    );
    expect(out).toBe('');
  });
});
