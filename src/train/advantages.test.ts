import { describe, expect, it } from 'vitest';
import { actionRewardsOf, advantages, rewardOf } from './advantages.ts';
import { trainConfig } from './config.ts';

const right = { correct: true, tokens: 10000, intermediate: [false, true, true] };
const wrong = { correct: false, tokens: 0, intermediate: [false, false] };

describe('rewards and advantages', () => {
  it('R = correct − λ·min(1, tokens/costScale)', () => {
    const c = trainConfig({ lambda: 0.2, costScale: 20000 });
    expect(rewardOf(c, right)).toBeCloseTo(1 - 0.2 * 0.5, 12);
    expect(rewardOf(c, { ...right, tokens: 1e9 })).toBeCloseTo(0.8, 12);
    expect(rewardOf(c, wrong)).toBe(0);
  });

  it('GRPO: the same group-normalised advantage on every step', () => {
    const c = trainConfig({ algo: 'grpo', advantageNorm: 'std', lambda: 0.2, costScale: 20000 });
    const a = advantages(c, [[right, wrong]], null);
    // R = [0.9, 0]; mean 0.45, population std 0.45 → ±1.
    expect(a.steps[0]?.[0]).toEqual([expect.closeTo(1, 6), expect.closeTo(1, 6), expect.closeTo(1, 6)]);
    expect(a.steps[0]?.[1]).toEqual([expect.closeTo(-1, 6), expect.closeTo(-1, 6)]);
  });

  it('advantageNorm mean: R − mean_g R, so an all-right group keeps its cost differences small', () => {
    const cheap = { ...right, tokens: 2000 };
    const dear = { ...right, tokens: 4000 };
    const std = trainConfig({ algo: 'grpo', advantageNorm: 'std', lambda: 0.1, costScale: 20000 });
    const mean = trainConfig({ algo: 'grpo', advantageNorm: 'mean', lambda: 0.1, costScale: 20000 });
    // R = [0.99, 0.98]: dividing by the std (0.005) turns a 0.01 cost gap into ±1 …
    expect(advantages(std, [[cheap, dear]], null).steps[0]?.map((s) => s[0])).toEqual([
      expect.closeTo(1, 5),
      expect.closeTo(-1, 5),
    ]);
    // … centring alone keeps it at ±0.005, far below a right/wrong gap.
    expect(advantages(mean, [[cheap, dear]], null).steps[0]?.map((s) => s[0])).toEqual([
      expect.closeTo(0.005, 12),
      expect.closeTo(-0.005, 12),
    ]);
    // R = [0.95, 0] → ±0.475.
    expect(advantages(mean, [[right, wrong]], null).steps[0]?.map((s) => s[0])).toEqual([
      expect.closeTo(0.475, 12),
      expect.closeTo(-0.475, 12),
    ]);
    const hrpo = trainConfig({
      algo: 'hrpo',
      advantageNorm: 'mean',
      lambda: 0.2,
      costScale: 20000,
      gamma: 0.5,
    });
    // R = [0.9, 0] → ±0.45, plus the action-wise terms as before (right's last step: 0.5·0.7²).
    expect(advantages(hrpo, [[right, wrong]], null).steps[0]?.[0]?.[2]).toBeCloseTo(0.45 + 0.5 * 0.49, 12);
  });

  it('HRPO: group advantage + γ-discounted action rewards from t on', () => {
    const c = trainConfig({ algo: 'hrpo', advantageNorm: 'std', lambda: 0.2, costScale: 20000, gamma: 0.5 });
    const a = advantages(c, [[right, wrong]], null);
    // right: r = [0 (w→w, t<T), +1 (w→r), 0.5·0.7² (r→r at t=2)] = [0, 1, 0.245]
    const r2 = 0.5 * 0.49;
    expect(a.steps[0]?.[0]?.[2]).toBeCloseTo(1 + r2, 6);
    expect(a.steps[0]?.[0]?.[1]).toBeCloseTo(1 + 1 + 0.5 * r2, 6);
    expect(a.steps[0]?.[0]?.[0]).toBeCloseTo(1 + 0 + 0.5 * (1 + 0.5 * r2), 6);
    expect(a.steps[0]?.[1]).toEqual([expect.closeTo(-1, 6), expect.closeTo(-1, 6)]);
  });

  it('the exemption ablation penalises wrong → wrong from step 0', () => {
    const on = trainConfig();
    const off = trainConfig({ exemption: false });
    expect(actionRewardsOf(on, wrong)).toEqual([0, 0]);
    // T = 0: −min(1, 0.1·(t + 1)).
    expect(actionRewardsOf(off, wrong)).toEqual([-0.1, expect.closeTo(-0.2, 12)]);
    expect(actionRewardsOf(trainConfig({ actionRewards: false }), right)).toEqual([0, 0, 0]);
  });

  it('REINFORCE: R − b with a moving-average baseline', () => {
    const c = trainConfig({ algo: 'reinforce', groupSize: 1, lambda: 0, baselineDecay: 0.9 });
    const first = advantages(c, [[right], [wrong]], null);
    // b starts at the first mean 0.5; then b = 0.9·0.5 + 0.1·0.5.
    expect(first.steps[0]?.[0]).toEqual([0.5, 0.5, 0.5]);
    expect(first.steps[1]?.[0]).toEqual([-0.5, -0.5]);
    expect(first.baseline).toBeCloseTo(0.5, 12);
    const second = advantages(c, [[right], [right]], 0.2);
    expect(second.steps[0]?.[0]?.[0]).toBeCloseTo(0.8, 12);
    expect(second.baseline).toBeCloseTo(0.9 * 0.2 + 0.1 * 1, 12);
  });
});
