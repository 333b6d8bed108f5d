import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { DEFAULT_POOL, randomCheckpoint, type PolicyCheckpoint } from '../policy/index.ts';
import { tInterval } from './ablation-stats.ts';
import { ABLATION_VARIANTS, ablationMarkdown, runAblation, type AblationProgress } from './ablation.ts';
import { trainConfig } from './config.ts';
import type { RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const tiny = (): PolicyCheckpoint =>
  randomCheckpoint(DEFAULT_POOL, 3, { hidden: 8, hashDim: 16, maxAgents: 4, maxSteps: 5, graphHidden: 4 });
const runners: RunnersFor = () => ({
  intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
  final: (trace) =>
    Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 * trace.design.agents.length }),
});
const base = { tasksPerIteration: 2, groupSize: 2, minibatch: 8, epochs: 1, maxSteps: 5, lr: 0.01 };
const variants = ABLATION_VARIANTS.filter((v) => v.id === 'hrpo' || v.id === 'reinforce');

describe('runAblation', () => {
  it('trains every variant on every seed, reports progress and intervals over seeds', async () => {
    const progress: AblationProgress[] = [];
    const study = await runAblation({
      start: tiny(),
      pool: DEFAULT_POOL,
      choice: cpu,
      runners,
      base,
      variants,
      seeds: [1, 2, 3],
      iterations: 2,
      evalN: 6,
      evalSeed: 9,
      onProgress: (p) => progress.push(p),
    });
    expect(study.complete).toBe(true);
    expect(study.runs).toHaveLength(6);
    // Two iterations and one "evaluated" report per run.
    expect(progress).toHaveLength(6 * 3);
    expect(progress.at(-1)).toMatchObject({
      variant: 'reinforce',
      seed: 3,
      iteration: 3,
      runsDone: 6,
      runsTotal: 6,
    });
    expect(progress[0]?.metrics?.iteration).toBe(1);
    for (const v of study.variants) {
      const runs = study.runs.filter((r) => r.variant === v.variant);
      expect(v.seeds).toBe(3);
      expect(v.accuracy).toEqual(tInterval(runs.map((r) => r.final.accuracy)));
      expect(v.curve).toHaveLength(2);
      expect(v.curve[1]?.reward).toBeCloseTo(runs.reduce((a, r) => a + (r.curve[1]?.reward ?? 0), 0) / 3, 12);
    }
    expect(study.runs.every((r) => r.final.n === 6)).toBe(true);
    const md = ablationMarkdown(study);
    expect(md).toContain('| HRPO | 3 |');
    expect(md).toContain('| REINFORCE | 3 |');
    // Different seeds train differently.
    const hrpo = study.runs.filter((r) => r.variant === 'hrpo').map((r) => JSON.stringify(r.curve));
    expect(new Set(hrpo).size).toBeGreaterThan(1);
  });

  it('stops between runs when asked and keeps what finished', async () => {
    let calls = 0;
    const study = await runAblation({
      start: tiny(),
      pool: DEFAULT_POOL,
      choice: cpu,
      runners,
      base,
      variants,
      seeds: [1, 2],
      iterations: 1,
      evalN: 2,
      evalSeed: 9,
      shouldStop: () => calls++ >= 1,
    });
    expect(study.complete).toBe(false);
    expect(study.runs).toHaveLength(1);
    expect(study.variants.map((v) => v.variant)).toEqual(['hrpo']);
  });

  it('every built-in variant is a valid config', () => {
    for (const v of ABLATION_VARIANTS) expect(() => trainConfig({ ...base, ...v.config })).not.toThrow();
    expect(new Set(ABLATION_VARIANTS.map((v) => v.id)).size).toBe(ABLATION_VARIANTS.length);
  });
});
