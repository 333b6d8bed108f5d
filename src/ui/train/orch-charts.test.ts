import { describe, expect, it } from 'vitest';
import type { OrchMetrics } from '../../store/slices/train-orch.ts';
import { ORCH_CHARTS, orchColumns } from './orch-charts.ts';

const row = (iteration: number, over: Partial<OrchMetrics> = {}): OrchMetrics => ({
  iteration,
  samples: 8,
  reward: 0.5,
  rewardStd: 0.1,
  accuracy: 0.75,
  tokensPerTask: 900,
  designTokens: 40,
  forcedShare: 0.8,
  agents: 2,
  depth: 2,
  validity: 1,
  lowDomDelegated: 0.5,
  kl: 0.01,
  entropy: 1.2,
  clipFraction: 0.05,
  loss: 0.1,
  gradNorm: 0.3,
  updates: 1,
  trainedTokens: 64,
  ...over,
});

describe('the orchestrator charts', () => {
  it('draws one row per iteration; a missing or non-finite value is a gap, not a zero', () => {
    const c = orchColumns([
      row(1, { lowDomDelegated: null }),
      row(2, { rolloutTokensPerSec: 300, updateTokensPerSec: 40, kl: Number.NaN }),
    ]);
    expect(c.iteration).toEqual([1, 2]);
    expect(c.delegated).toEqual([null, 0.5]);
    expect(c.rolloutTps).toEqual([null, 300]);
    expect(c.updateTps).toEqual([null, 40]);
    expect(c.kl).toEqual([0.01, null]);
    expect(c.tokens).toEqual([900, 900]);
  });

  it('every chart draws series the columns have', () => {
    const c = orchColumns([row(1)]);
    for (const spec of ORCH_CHARTS) for (const l of spec.lines) expect(Object.keys(c)).toContain(l.series);
    expect(ORCH_CHARTS.map((s) => s.id)).toEqual(
      expect.arrayContaining([
        'orch-reward',
        'orch-accuracy',
        'orch-delegated',
        'orch-kl',
        'orch-clip',
        'orch-tps',
      ]),
    );
  });
});
