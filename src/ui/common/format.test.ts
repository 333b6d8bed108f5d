import { describe, expect, it } from 'vitest';
import { agentCount, agentCountOf, formatCost, formatMs, formatTokens, plural } from './format.ts';

describe('formatCost', () => {
  it('writes sub-cent costs in plain decimals with two significant digits', () => {
    expect(formatCost(9.8e-5)).toBe('$0.000098');
    expect(formatCost(0.0004)).toBe('$0.0004');
    expect(formatCost(0.00123)).toBe('$0.0012');
    expect(formatCost(0.005)).toBe('$0.005');
    expect(formatCost(1.234e-6)).toBe('$0.0000012');
  });

  it('never uses exponent notation', () => {
    for (let e = -9; e <= 4; e++) {
      for (const m of [1, 2.5, 9.99]) expect(formatCost(m * 10 ** e)).not.toMatch(/e/i);
    }
  });

  it('rounds up to the next decade without a trailing zero', () => {
    expect(formatCost(0.0099999)).toBe('$0.01');
    expect(formatCost(0.00009999)).toBe('$0.0001');
  });

  it('says a tiny cost is not free, and nothing is $0', () => {
    expect(formatCost(3e-9)).toBe('<$0.000001');
    expect(formatCost(0)).toBe('$0');
    expect(formatCost(Number.NaN)).toBe('$0');
  });

  it('shows three decimals under a dollar and cents above', () => {
    expect(formatCost(0.0123)).toBe('$0.012');
    expect(formatCost(0.5)).toBe('$0.500');
    expect(formatCost(12.5)).toBe('$12.50');
    expect(formatCost(1234)).toBe('$1,234.00');
  });
});

describe('other formats', () => {
  it('tokens, durations and counts', () => {
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(1500)).toBe('1.5k');
    expect(formatTokens(2_500_000)).toBe('2.5M');
    expect(formatMs(850)).toBe('850 ms');
    expect(formatMs(12_345)).toBe('12.3 s');
    expect(formatMs(245_000)).toBe('4 min 5 s');
    expect(plural(1, 'agent')).toBe('1 agent');
    expect(plural(3, 'agent')).toBe('3 agents');
  });
});

describe('agentCount', () => {
  const a = (type: string) => ({ type });

  it('says when the count includes the summariser, so it can be read against the Build page', () => {
    expect(agentCount([a('CoTAgent'), a('ReflexionAgent'), a('SummarizerAgent')])).toBe(
      '3 agents (incl. summariser)',
    );
    expect(agentCountOf(5, 2)).toBe('5 agents (incl. 2 summarisers)');
  });

  it('says nothing more when there is no summariser, or only one agent', () => {
    expect(agentCount([a('CoTAgent'), a('SCAgent')])).toBe('2 agents');
    expect(agentCount([a('SummarizerAgent')])).toBe('1 agent');
    expect(agentCount([])).toBe('0 agents');
  });
});
