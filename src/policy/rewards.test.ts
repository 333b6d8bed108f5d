import { describe, expect, it } from 'vitest';
import {
  ActionRewardConfigSchema,
  DEFAULT_ACTION_REWARD as C,
  actionReward,
  actionRewards,
  groupAdvantages,
  groupReward,
  stepAdvantages,
} from './rewards.ts';

describe('action-wise reward', () => {
  it('wrong → right +1, right → wrong −1 even inside the exemption window', () => {
    expect(actionReward(false, true, 0)).toBe(1);
    expect(actionReward(false, true, 9)).toBe(1);
    expect(actionReward(true, false, 0)).toBe(-1);
    expect(actionReward(true, false, C.exemption - 1)).toBe(-1);
  });

  it('right → right: a bonus that decays toward 0 with t', () => {
    const bonus = [0, 1, 5, 30].map((t) => actionReward(true, true, t) as number);
    expect(bonus[0]).toBe(C.bonus);
    for (let i = 1; i < bonus.length; i++) expect(bonus[i]).toBeLessThan(bonus[i - 1] as number);
    expect(bonus[3]).toBeLessThan(1e-4);
    expect(bonus[3]).toBeGreaterThan(0);
  });

  it('wrong → wrong: 0 before the exemption time T, then a penalty growing with t up to a cap', () => {
    for (let t = 0; t < C.exemption; t++) expect(actionReward(false, false, t)).toBe(0);
    const after = [0, 1, 2, 50].map((k) => actionReward(false, false, C.exemption + k) as number);
    expect(after[0]).toBeCloseTo(-C.penaltyRate, 12);
    expect(after[1]).toBeLessThan(after[0] as number);
    expect(after[3]).toBe(-C.penaltyMax);
  });

  it('unknown correctness gives no reward; the empty MAS counts as wrong', () => {
    expect(actionReward(null, true, 2)).toBeNull();
    expect(actionReward(true, null, 2)).toBeNull();
    expect(actionRewards([true, true, null, false])).toEqual([1, C.bonus * C.bonusDecay, null, null]);
  });

  it('constants are configurable and validated', () => {
    const c = ActionRewardConfigSchema.parse({ exemption: 0, penaltyRate: 0.5 });
    expect(actionReward(false, false, 0, c)).toBe(-0.5);
    expect(ActionRewardConfigSchema.safeParse({ bonusDecay: 0 }).success).toBe(false);
  });
});

describe('group reward and advantages', () => {
  it('R = correct − λ·min(1, cost/scale), so a correct answer always beats a wrong one', () => {
    expect(groupReward(true, 0)).toBe(1);
    expect(groupReward(true, 0.5, { lambda: 0.2, costScale: 1 })).toBeCloseTo(0.9, 12);
    expect(groupReward(true, 1e9, { lambda: 0.99, costScale: 1 })).toBeGreaterThan(groupReward(false, 0));
  });

  it('group-normalised advantages plus the γ-discounted tail of action rewards', () => {
    const adv = groupAdvantages([1, 0, 1, 0]);
    expect(adv).toEqual([1, -1, 1, -1].map((x) => expect.closeTo(x, 6) as unknown as number));
    expect(groupAdvantages([0.5, 0.5])).toEqual([0, 0]);
    expect(stepAdvantages(1, [1, null, -1], 0.5)).toEqual([1 + 1 + 0 - 0.25, 1 + 0 - 0.5, 1 - 1]);
  });
});
