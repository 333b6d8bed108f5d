/**
 * What the two orchestrator GRPO benchmarks (bench/orchestrator-train.bench.ts in headless Chromium,
 * bench/orchestrator-train-node.bench.ts in Node) report alike: the iteration's throughput from the
 * per-iteration timings, the curve table, the held-out table with its paired intervals, and the
 * throughput table.
 */

/** The per-iteration metrics both runs give (src/train `OrchestratorIterationMetrics`, the worker's `OrchMetrics`). */
export interface IterationRow {
  iteration: number;
  samples: number;
  reward: number;
  accuracy: number;
  tokensPerTask: number;
  designTokens: number;
  agents: number;
  lowDomDelegated: number | null;
  kl: number;
  entropy: number;
  clipFraction: number;
  timings?: { rolloutMs: number; runMs: number; updateMs: number } | undefined;
  updateTokensPerSec?: number | undefined;
}

export interface HeldOut {
  n: number;
  accuracy: number;
  interval: readonly [number, number] | number[];
  tokens: number;
  agents: number;
  designTokens: number;
  forcedShare: number;
  validity: number;
  lowDomDelegated: number | null;
}

export interface Paired {
  difference: number;
  interval: readonly [number, number] | number[];
}

export interface BeforeAfterRows {
  before: HeldOut;
  after: HeldOut;
  accuracy: Paired;
  tokens: Paired;
}

export interface Throughput {
  rolloutTokensPerSec: number;
  updateTokensPerSec: number;
  rolloutShare: number;
  runShare: number;
  updateShare: number;
  iterationSeconds: number;
}

const r = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/**
 * Rollout tokens/s (every token the model wrote, forced ones included, over the sampling time),
 * update tokens/s (the live tokens of the updates over the update time), each phase's share of the
 * iteration and the mean seconds per iteration.
 */
export function throughputOf(curve: readonly IterationRow[]): Throughput {
  const sum = (f: (m: IterationRow) => number): number => curve.reduce((a, m) => a + f(m), 0);
  const rolloutMs = sum((m) => m.timings?.rolloutMs ?? 0);
  const runMs = sum((m) => m.timings?.runMs ?? 0);
  const updateMs = sum((m) => m.timings?.updateMs ?? 0);
  const genTokens = sum((m) => m.designTokens * m.samples);
  const windowTokens = sum((m) => ((m.updateTokensPerSec ?? 0) * (m.timings?.updateMs ?? 0)) / 1000);
  const phases = rolloutMs + runMs + updateMs;
  return {
    rolloutTokensPerSec: r((1000 * genTokens) / rolloutMs, 1),
    updateTokensPerSec: r((1000 * windowTokens) / updateMs, 1),
    rolloutShare: r(rolloutMs / phases),
    runShare: r(runMs / phases),
    updateShare: r(updateMs / phases),
    iterationSeconds: r(phases / Math.max(1, curve.length) / 1000, 2),
  };
}

/** The curve table, at most about `rows` rows (every k-th iteration and the last). */
export function curveTable(curve: readonly IterationRow[], rows = 15): string[] {
  const every = Math.max(1, Math.ceil(curve.length / rows));
  return [
    '| iteration | reward | accuracy | tokens/task | agents | low-DoM delegated | KL | entropy | clip fraction |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...curve
      .filter((_, i) => i % every === 0 || i === curve.length - 1)
      .map(
        (m) =>
          `| ${m.iteration} | ${m.reward.toFixed(3)} | ${m.accuracy.toFixed(3)} | ${m.tokensPerTask.toFixed(0)} | ${m.agents.toFixed(2)} | ${m.lowDomDelegated === null ? '–' : pct(m.lowDomDelegated)} | ${m.kl.toFixed(4)} | ${m.entropy.toFixed(3)} | ${m.clipFraction.toFixed(3)} |`,
      ),
  ];
}

const ci = (p: Paired, f: (x: number) => string): string =>
  `${f(p.difference)} [${f(p.interval[0] ?? NaN)}, ${f(p.interval[1] ?? NaN)}]`;

/** The held-out table (SFT and after GRPO) and the line of paired differences. */
export function heldOutTable(ba: BeforeAfterRows): string[] {
  const row = (name: string, s: HeldOut): string =>
    `| ${name} | ${pct(s.accuracy)} [${pct(s.interval[0] ?? NaN)}, ${pct(s.interval[1] ?? NaN)}] | ${s.tokens.toFixed(0)} | ${s.agents.toFixed(2)} | ${s.designTokens.toFixed(1)} | ${pct(s.forcedShare)} | ${s.lowDomDelegated === null ? '–' : pct(s.lowDomDelegated)} | ${pct(s.validity)} |`;
  return [
    '| model | accuracy [95% Wilson] | tokens/task | agents | design tokens | forced | low-DoM delegated | valid |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row('SFT', ba.before),
    row('after GRPO', ba.after),
    '',
    `After − SFT, paired bootstrap 95% over the same queries: accuracy ${ci(ba.accuracy, (x) => `${(100 * x).toFixed(1)} pts`)}, tokens/task ${ci(ba.tokens, (x) => x.toFixed(0))}.`,
  ];
}

export function throughputTable(t: Throughput): string[] {
  return [
    '| rollout tokens/s | update tokens/s | rollout share | simulator share | update share | s per iteration |',
    '|---:|---:|---:|---:|---:|---:|',
    `| ${t.rolloutTokensPerSec} | ${t.updateTokensPerSec} | ${pct(t.rolloutShare)} | ${pct(t.runShare)} | ${pct(t.updateShare)} | ${t.iterationSeconds} |`,
  ];
}
