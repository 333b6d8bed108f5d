import { describe, expect, it } from 'vitest';
import type { ConstructionStep } from '../core/trace.ts';
import { stepChoice, STEP_CHOICE_LABEL } from './construction-choice.ts';

const step = (over: Partial<ConstructionStep> = {}): ConstructionStep => ({
  index: 1,
  action: { kind: 'add', role: 'Solver', agentId: 'a2', agentType: 'CoTAgent', links: ['a1'] },
  roleDistribution: [
    { action: 'Solver', p: 0.6 },
    { action: 'Critic', p: 0.3 },
    { action: 'EXIT', p: 0.1 },
  ],
  edgeProbabilities: [
    { from: 'a1', p: 0.8 },
    { from: 'a0', p: 0.2 },
  ],
  logProb: -0.7,
  chooser: 'policy',
  ...over,
});

describe('stepChoice', () => {
  it('says a policy step took its most probable action when role and links are the greedy ones', () => {
    expect(stepChoice(step())).toBe('most-probable');
    expect(STEP_CHOICE_LABEL[stepChoice(step())]).toBe("policy's most probable action");
    expect(
      stepChoice(
        step({ action: { kind: 'exit', summarizerId: 's' }, roleDistribution: [{ action: 'EXIT', p: 1 }] }),
      ),
    ).toBe('most-probable');
  });

  it('says sampled when the role or the links are not the most probable ones', () => {
    expect(
      stepChoice(
        step({
          action: { kind: 'add', role: 'Critic', agentId: 'a2', agentType: 'ReflexionAgent', links: ['a1'] },
        }),
      ),
    ).toBe('sampled');
    expect(
      stepChoice(
        step({
          action: { kind: 'add', role: 'Solver', agentId: 'a2', agentType: 'CoTAgent', links: ['a0', 'a1'] },
        }),
      ),
    ).toBe('sampled');
    expect(STEP_CHOICE_LABEL.sampled).toContain('sampled');
  });

  it('says chosen by user for a user step, whatever its probabilities', () => {
    expect(stepChoice(step({ chooser: 'user' }))).toBe('user');
  });
});
