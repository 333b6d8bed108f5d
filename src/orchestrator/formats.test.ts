import { describe, expect, it } from 'vitest';
import { designBudget } from './formats.ts';

describe('designBudget', () => {
  it('lets the tiny format hold as many agents as its training designs (6 in the 190 tokens the tiny model leaves)', () => {
    expect(designBudget(190, 'tiny').maxAgents).toBe(6);
    expect(designBudget(190, 'tiny').maxTokens).toBe(190);
  });

  it('keeps hub designs within their larger per-agent cost, and never below one agent or above eight', () => {
    const hub = designBudget(190, 'hub');
    expect(hub.maxAgents).toBe(2);
    expect(hub.fieldTokens.text).toBe(11);
    expect(designBudget(10, 'hub').maxAgents).toBe(1);
    expect(designBudget(10, 'tiny').maxAgents).toBe(1);
    expect(designBudget(100_000, 'tiny').maxAgents).toBe(8);
    expect(designBudget(100_000, 'hub').fieldTokens.text).toBe(256);
  });
});
