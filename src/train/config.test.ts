import { describe, expect, it } from 'vitest';
import { StoredTrainConfigSchema, parseTrainConfig, trainConfig } from './config.ts';

describe('TrainConfig', () => {
  it('fills every default', () => {
    const c = trainConfig();
    expect(c).toMatchObject({
      algo: 'grpo',
      advantageNorm: 'mean',
      lambda: 0.5,
      lr: 2e-3,
      clipEps: 0.2,
      tasksPerIteration: 8,
      groupSize: 8,
      actionRewards: true,
    });
    expect(c.actionReward.exemption).toBe(3);
  });

  it('names each bad field', () => {
    const r = parseTrainConfig({ algo: 'ppo', clipEps: 1.5, lambda: 1, lr: -1 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.some((p) => p.startsWith('algo:'))).toBe(true);
    expect(r.problems.some((p) => p.startsWith('clipEps:'))).toBe(true);
    expect(r.problems.some((p) => p.startsWith('lambda:'))).toBe(true);
    expect(r.problems.some((p) => p.startsWith('lr:'))).toBe(true);
  });

  it('rejects a group of one for the group methods and hrpo without intermediate answers', () => {
    expect(() => trainConfig({ algo: 'grpo', groupSize: 1 })).toThrow(/groupSize must be at least 2/);
    expect(trainConfig({ algo: 'reinforce', groupSize: 1 }).groupSize).toBe(1);
    expect(() => trainConfig({ algo: 'hrpo', intermediate: false })).toThrow(/need intermediate answers/);
    expect(trainConfig({ intermediate: false, actionRewards: false }).intermediate).toBe(false);
  });

  it('has a held-out evaluation interval that old configs, without the field, parse to', () => {
    expect(trainConfig().evalEvery).toBe(10);
    expect(trainConfig({ evalEvery: 0 }).evalEvery).toBe(0);
    const old = { ...trainConfig() } as Partial<ReturnType<typeof trainConfig>>;
    delete old.evalEvery;
    expect('evalEvery' in old).toBe(false);
    const parsed = StoredTrainConfigSchema.safeParse(old);
    expect(parsed.success && parsed.data.evalEvery).toBe(10);
    const r = parseTrainConfig({ evalEvery: -1 });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problems.some((p) => p.startsWith('evalEvery:'))).toBe(true);
    expect(parseTrainConfig({ evalEvery: 2.5 }).ok).toBe(false);
  });
});
