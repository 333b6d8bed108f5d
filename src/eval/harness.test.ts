import { describe, expect, it } from 'vitest';
import type { Trace } from '../core/trace.ts';
import { planJobs, runEvaluation, type EvalExecutor, type Job } from './harness.ts';
import { masbenchTasks } from './tasks.ts';
import type { EvalConfig } from './schema.ts';

const config: EvalConfig = {
  methods: [
    { kind: 'agent', agent: 'cot' },
    { kind: 'agent', agent: 'sc' },
    { kind: 'orchestrator', model: 'm' },
  ],
  taskSet: { kind: 'masbench', axes: [{ axis: 'depth', values: [2, 4] }], n: 3, seed: 1, split: 'all' },
  seeds: [0],
  backend: { kind: 'simulated' },
  budget: {},
};
const tasks = masbenchTasks(config.taskSet as Extract<EvalConfig['taskSet'], { kind: 'masbench' }>);

/** A fake executor: every run "costs" 10 tokens per agent and is right on even task ids' lengths. */
function fake(limit = Infinity): EvalExecutor & { runs: string[]; spent: number } {
  const f = {
    runs: [] as string[],
    spent: 0,
    left: () => ({ tokens: limit - f.spent, usd: Infinity }),
    run: (trace: Trace, job: Job) => {
      f.runs.push(job.key);
      const cost = job.methodId === 'sc' ? 50 : 10;
      if (f.spent + cost > limit)
        return Promise.resolve({ kind: 'stopped' as const, reason: 'budget: out', tokens: 0, usd: 0 });
      f.spent += cost;
      const correct = job.task.id.length % 2 === 0;
      return Promise.resolve({
        kind: 'done' as const,
        trace: {
          ...trace,
          execution: { ...trace.execution, status: 'completed' as const },
          result: { finalAnswer: '1', correct },
          totals: {
            promptTokens: cost - 2,
            completionTokens: 2,
            costUsd: 0,
            llmCalls: 1,
            wallMs: 5,
            criticalPathMs: 5,
          },
        },
      });
    },
  };
  return f;
}

describe('runEvaluation', () => {
  it('runs every available method on every task once and never the orchestrator', async () => {
    const ex = fake();
    const doc = await runEvaluation({
      config,
      tasks,
      executor: ex,
      createdAt: '2026-01-01T00:00:00.000Z',
      concurrency: 3,
    });
    expect(doc.complete).toBe(true);
    expect(doc.rows).toHaveLength(12);
    expect(new Set(ex.runs).size).toBe(12);
    expect(doc.summary.methods.map((m) => [m.method, m.available, m.overall.n])).toEqual([
      ['cot', true, 6],
      ['sc', true, 6],
      ['orchestrator:m', false, 0],
    ]);
    expect(doc.summary.methods[0]?.perValue.map((p) => [p.axis, p.value, p.n])).toEqual([
      ['depth', 2, 3],
      ['depth', 4, 3],
    ]);
    expect(doc.summary.methods[1]?.overall.totalTokens).toBe(300);
    // Same correctness for both methods on every task: no discordant pairs.
    expect(doc.summary.pairs).toEqual([
      expect.objectContaining({ a: 'cot', b: 'sc', n: 6, aOnly: 0, bOnly: 0, pExact: 1 }),
    ]);
    expect(doc.summary.pareto).toEqual(['cot']);
  });

  it('stops before a job the budget cannot cover and resumes from the rows without re-running them', async () => {
    const ex = fake(130);
    const first = await runEvaluation({
      config,
      tasks,
      executor: ex,
      createdAt: '2026-01-01T00:00:00.000Z',
      concurrency: 1,
    });
    expect(first.complete).toBe(false);
    expect(first.stopped).toMatch(/^budget/);
    expect(first.spend.tokens).toBeLessThanOrEqual(130);
    const ex2 = fake();
    const second = await runEvaluation({
      config,
      tasks,
      executor: ex2,
      done: first.rows,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(second.complete).toBe(true);
    expect(second.rows).toHaveLength(12);
    for (const r of first.rows) expect(ex2.runs).not.toContain(r.key);
    expect(ex2.runs.length + first.rows.length).toBe(12);
    expect(second.spend.tokens).toBe(second.rows.reduce((s, r) => s + r.tokens, 0));
  });

  it('plans task-major so methods interleave', () => {
    const jobs = planJobs(config.methods.slice(0, 2), tasks.slice(0, 2), [0, 1]);
    expect(jobs.map((j) => j.key.split('|')[0])).toEqual([
      'cot',
      'sc',
      'cot',
      'sc',
      'cot',
      'sc',
      'cot',
      'sc',
    ]);
  });
});
