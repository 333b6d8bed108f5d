import { describe, expect, it } from 'vitest';
import type { OrchestratorIterationMetrics } from './orchestrator-checkpoint.ts';
import type { HeldOutDesign } from './orchestrator-eval.ts';
import { findingsMarkdown, orchestratorFindings, slope } from './orchestrator-findings.ts';

const row = (i: number, o: Partial<HeldOutDesign> = {}): HeldOutDesign => ({
  taskId: `t${Math.floor(i / 2)}`,
  axis: 'parallel',
  value: 2 + (Math.floor(i / 2) % 11),
  dom: i % 2 === 0 ? 'low' : 'high',
  correct: false,
  tokens: 100,
  agents: 1,
  depth: 1,
  width: 1,
  roles: ['CoT'],
  designTokens: 40,
  forced: 10,
  valid: true,
  ...o,
});

const curve = (delegated: number[]): OrchestratorIterationMetrics[] =>
  delegated.map(
    (d, k) => ({ iteration: k + 1, lowDomDelegated: d }) as unknown as OrchestratorIterationMetrics,
  );

// 44 queries: 22 tasks of values 2..12 twice, each in low and high DoM.
const before = Array.from({ length: 44 }, (_, i) => row(i, { correct: i % 4 === 1 }));

describe('orchestrator findings', () => {
  it('measures delegation, accuracy and cost against the SFT rows, with an interval over seeds', () => {
    // Seed 1: every query right, the low-DoM ones answered directly; seed 2: half of them.
    const s1 = before.map((r, i) => ({ ...r, correct: true, tokens: 50, agents: i % 2 === 0 ? 0 : 1 }));
    const s2 = before.map((r, i) => ({
      ...r,
      correct: i % 2 === 1,
      tokens: 150,
      agents: i % 4 === 0 ? 0 : 1,
    }));
    const f = orchestratorFindings(
      before,
      [
        { seed: 1, curve: curve([1, 1, 0.5, 0, 0]), after: s1 },
        { seed: 2, curve: curve([1, 1, 1, 1, 0.5]), after: s2 },
      ],
      2,
    );
    expect(f.accuracy.before).toBeCloseTo(11 / 44, 12);
    expect(f.accuracy.after.mean).toBeCloseTo((1 + 0.5) / 2, 12);
    expect(f.accuracy.difference.mean).toBeCloseTo(0.75 - 11 / 44, 12);
    // Two seeds: t(1) = 12.706, so the interval is wide but contains the mean.
    expect(f.accuracy.difference.interval[0]).toBeLessThan(f.accuracy.difference.mean);
    expect(f.tokens.difference.mean).toBeCloseTo(0, 12);
    expect(f.delegation.before).toBe(1);
    expect(f.delegation.after.mean).toBeCloseTo((0 + 0.5) / 2, 12);
    expect(f.delegation.early.mean).toBeCloseTo(1, 12);
    expect(f.delegation.late.mean).toBeCloseTo((0 + 0.75) / 2, 12);
    expect(f.perSeed[0]?.accuracy.difference).toBeCloseTo(1 - 11 / 44, 12);
    expect(f.perSeed[0]?.accuracy.interval[0]).toBeGreaterThan(0);
  });

  it('tracks structure per axis and value band in high DoM, and the slope of agents over the value', () => {
    const grown = before.map((r) =>
      r.dom === 'high'
        ? { ...r, agents: r.value, width: r.value - 1, roles: ['Solver', 'Solver', 'Summarizer'] }
        : r,
    );
    const f = orchestratorFindings(before, [{ seed: 7, curve: curve([1]), after: grown }]);
    expect(f.structure.map((c) => c.band)).toEqual(['2–4', '5–8', '9–12']);
    const top = f.structure.find((c) => c.band === '9–12');
    expect(top?.before.agents).toBe(1);
    expect(top?.agents.mean).toBeCloseTo(10.5, 12);
    expect(top?.width.mean).toBeCloseTo(9.5, 12);
    expect(top?.after[0]?.roles[0]).toEqual(['Solver', 2 / 3]);
    expect(f.trends[0]?.before).toBe(0);
    expect(f.trends[0]?.after.mean).toBeCloseTo(1, 12);
    const md = findingsMarkdown(f);
    expect(md).toContain('| parallel | 9–12 | 8 | 1.00 · 1.00 · 1.00 | 10.50');
    expect(md).toContain('seed 7: accuracy');
  });

  it('refuses runs evaluated on other queries', () => {
    const other = before.map((r, i) => (i === 3 ? { ...r, taskId: 'elsewhere' } : r));
    expect(() => orchestratorFindings(before, [{ seed: 1, curve: [], after: other }])).toThrow(
      /seed 1 was evaluated on other queries/,
    );
    expect(() => orchestratorFindings(before, [])).toThrow(/at least one seed/);
  });

  it('fits a least-squares slope', () => {
    expect(slope([1, 2, 3], [2, 4, 6])).toBeCloseTo(2, 12);
    expect(slope([5, 5], [1, 9])).toBe(0);
  });
});
