/**
 * The ablation study: every variant (HRPO, GRPO, REINFORCE and HRPO with one part switched off)
 * trained from the same start, on the same preset and budget (iterations, B, G), once per training
 * seed; each trained policy is scored greedily on the same held-out tasks. Per variant it reports
 * the final held-out accuracy, reward and tokens as a mean over seeds with a 95% Student-t
 * interval over seeds (ablation-stats.ts), and the per-iteration training curves (mean over seeds).
 *
 * The variants are config switches of one trainer, not forks. Two of them coincide in what the
 * advantages see: without action-wise rewards HRPO's advantage is GRPO's, and without intermediate
 * answers there are no action-wise rewards either (the config refuses HRPO action rewards without
 * intermediate answers); they differ only in whether partial MASs are run during rollouts.
 *
 * Pure: runners and the compute backend are injected; progress goes to a callback per
 * (variant, seed, iteration) so a page or the CLI can show it; `shouldStop` ends the study early
 * (finished runs are kept).
 */
import type { BackendChoice } from '../gpu/index.ts';
import { PolicyNetwork, type PolicyCheckpoint, type RolePool } from '../policy/index.ts';
import { meanOf, tInterval, type MeanInterval } from './ablation-stats.ts';
import { trainConfig, type TrainConfig, type TrainConfigInput } from './config.ts';
import { evaluatePolicy, type EvalResult } from './evaluate.ts';
import { Trainer } from './loop.ts';
import type { IterationMetrics } from './metrics.ts';
import type { RunnersFor } from './rollout.ts';

export interface AblationVariant {
  id: string;
  label: string;
  /** Overrides of the study's base config. */
  config: Partial<
    Pick<TrainConfig, 'algo' | 'actionRewards' | 'exemption' | 'intermediate' | 'jpss' | 'advantageNorm'>
  >;
}

export const ABLATION_VARIANTS: readonly AblationVariant[] = [
  { id: 'hrpo', label: 'HRPO', config: { algo: 'hrpo' } },
  { id: 'grpo', label: 'GRPO', config: { algo: 'grpo' } },
  { id: 'reinforce', label: 'REINFORCE', config: { algo: 'reinforce' } },
  { id: 'hrpo-no-exemption', label: 'HRPO w/o exemption time', config: { algo: 'hrpo', exemption: false } },
  {
    id: 'hrpo-no-action-rewards',
    label: 'HRPO w/o action-wise rewards',
    config: { algo: 'hrpo', actionRewards: false },
  },
  { id: 'hrpo-no-jpss', label: 'HRPO w/o JPSS', config: { algo: 'hrpo', jpss: false } },
  {
    id: 'hrpo-no-intermediate',
    label: 'HRPO w/o intermediate answers',
    config: { algo: 'hrpo', intermediate: false, actionRewards: false },
  },
  {
    id: 'hrpo-std',
    label: 'HRPO, group advantage ÷ std',
    config: { algo: 'hrpo', advantageNorm: 'std' },
  },
  {
    id: 'grpo-std',
    label: 'GRPO, group advantage ÷ std',
    config: { algo: 'grpo', advantageNorm: 'std' },
  },
];

/** One point of a training curve (train-split rollouts of that iteration). */
export interface CurvePoint {
  iteration: number;
  reward: number;
  accuracy: number;
  tokens: number;
  agents: number;
  kl: number;
}

export interface AblationRun {
  variant: string;
  seed: number;
  curve: CurvePoint[];
  /** Greedy, held-out. */
  final: Pick<EvalResult, 'n' | 'accuracy' | 'reward' | 'tokens' | 'agents' | 'edges'>;
}

export interface VariantSummary {
  variant: string;
  label: string;
  seeds: number;
  /** Over seeds, 95% t-interval. */
  accuracy: MeanInterval;
  reward: MeanInterval;
  tokens: MeanInterval;
  agents: number;
  /** Mean over seeds per iteration (only iterations every seed reached). */
  curve: CurvePoint[];
}

export interface AblationProgress {
  variant: string;
  /** 0-based position of the variant and the seed in the study. */
  variantIndex: number;
  seedIndex: number;
  seed: number;
  /** Iterations finished in this run (1-based), or `iterations` + 1 once its evaluation is done. */
  iteration: number;
  iterations: number;
  /** Runs finished in the whole study, and how many there are. */
  runsDone: number;
  runsTotal: number;
  metrics?: IterationMetrics;
}

export interface AblationOptions {
  start: PolicyCheckpoint;
  pool: RolePool;
  choice: BackendChoice;
  runners: RunnersFor;
  /** The shared config (preset, B, G, λ, …); each variant overrides only its switches, each run its seed. */
  base: TrainConfigInput;
  variants?: readonly AblationVariant[];
  /** Training seeds (≥ 5 for an interval worth reading). */
  seeds: readonly number[];
  iterations: number;
  /** Held-out greedy evaluation: tasks and their seed (the same for every run). */
  evalN: number;
  evalSeed: number;
  onProgress?: (p: AblationProgress) => void;
  shouldStop?: () => boolean;
}

export interface AblationStudy {
  format: 'baton.ablation/1';
  start: string;
  base: TrainConfig;
  iterations: number;
  seeds: number[];
  evalN: number;
  evalSeed: number;
  interval: string;
  /** The starting policy on the same held-out tasks. */
  startScore: AblationRun['final'];
  variants: VariantSummary[];
  runs: AblationRun[];
  /** False when `shouldStop` ended the study before every run finished. */
  complete: boolean;
}

const pickFinal = (r: EvalResult): AblationRun['final'] => ({
  n: r.n,
  accuracy: r.accuracy,
  reward: r.reward,
  tokens: r.tokens,
  agents: r.agents,
  edges: r.edges,
});

const pointOf = (m: IterationMetrics): CurvePoint => ({
  iteration: m.iteration,
  reward: m.meanReward,
  accuracy: m.accuracy,
  tokens: m.tokens,
  agents: m.agents,
  kl: m.update.kl,
});

async function scoreGreedy(
  cp: PolicyCheckpoint,
  o: AblationOptions,
  config: TrainConfig,
): Promise<AblationRun['final']> {
  const net = await PolicyNetwork.create(cp, o.choice);
  try {
    return pickFinal(
      await evaluatePolicy({
        net,
        pool: o.pool,
        config,
        runners: o.runners,
        n: o.evalN,
        seed: o.evalSeed,
        greedy: true,
      }),
    );
  } finally {
    net.dispose();
  }
}

/** Per variant: intervals over seeds and the mean curve. */
export function summarizeAblation(
  variants: readonly AblationVariant[],
  runs: readonly AblationRun[],
): VariantSummary[] {
  return variants.flatMap((v) => {
    const rs = runs.filter((r) => r.variant === v.id);
    if (rs.length === 0) return [];
    const len = Math.min(...rs.map((r) => r.curve.length));
    const curve: CurvePoint[] = [];
    for (let i = 0; i < len; i++) {
      const at = rs.map((r) => r.curve[i] as CurvePoint);
      curve.push({
        iteration: i + 1,
        reward: meanOf(at.map((p) => p.reward)),
        accuracy: meanOf(at.map((p) => p.accuracy)),
        tokens: meanOf(at.map((p) => p.tokens)),
        agents: meanOf(at.map((p) => p.agents)),
        kl: meanOf(at.map((p) => p.kl)),
      });
    }
    return [
      {
        variant: v.id,
        label: v.label,
        seeds: rs.length,
        accuracy: tInterval(rs.map((r) => r.final.accuracy)),
        reward: tInterval(rs.map((r) => r.final.reward)),
        tokens: tInterval(rs.map((r) => r.final.tokens)),
        agents: meanOf(rs.map((r) => r.final.agents)),
        curve,
      },
    ];
  });
}

export async function runAblation(o: AblationOptions): Promise<AblationStudy> {
  const variants = o.variants ?? ABLATION_VARIANTS;
  const base = trainConfig(o.base);
  // Validate every variant before any work, so a bad combination fails at once.
  const configs = variants.map((v) => trainConfig({ ...base, ...v.config }));
  const startScore = await scoreGreedy(o.start, o, base);
  const runs: AblationRun[] = [];
  const runsTotal = variants.length * o.seeds.length;
  let complete = true;
  outer: for (const [vi, v] of variants.entries()) {
    for (const [si, seed] of o.seeds.entries()) {
      if (o.shouldStop?.()) {
        complete = false;
        break outer;
      }
      const config = { ...(configs[vi] as TrainConfig), seed };
      const trainer = await Trainer.create({
        start: o.start,
        pool: o.pool,
        config,
        choice: o.choice,
        runners: o.runners,
      });
      const curve: CurvePoint[] = [];
      const progress = (iteration: number, metrics?: IterationMetrics): void =>
        o.onProgress?.({
          variant: v.id,
          variantIndex: vi,
          seedIndex: si,
          seed,
          iteration,
          iterations: o.iterations,
          runsDone: runs.length,
          runsTotal,
          ...(metrics ? { metrics } : {}),
        });
      try {
        for (let it = 0; it < o.iterations; it++) {
          const m = await trainer.iterate();
          curve.push(pointOf(m));
          progress(m.iteration, m);
        }
        const final = await scoreGreedy(await trainer.trained(), o, config);
        runs.push({ variant: v.id, seed, curve, final });
        progress(o.iterations + 1);
      } finally {
        trainer.dispose();
      }
    }
  }
  return {
    format: 'baton.ablation/1',
    start: o.start.name,
    base,
    iterations: o.iterations,
    seeds: [...o.seeds],
    evalN: o.evalN,
    evalSeed: o.evalSeed,
    interval: 'mean over training seeds ± t(0.975, seeds − 1)·s/√seeds (Student t, 95%)',
    startScore,
    variants: summarizeAblation(variants, runs),
    runs,
    complete,
  };
}

const f3 = (x: number): string => x.toFixed(3);
const ci = (m: MeanInterval, f: (x: number) => string = f3): string =>
  `${f(m.mean)} [${f(m.interval[0])}, ${f(m.interval[1])}]`;

/** The study as a markdown table (one row per variant, the start policy first). */
export function ablationMarkdown(s: AblationStudy): string {
  const f0 = (x: number): string => x.toFixed(0);
  const lines = [
    `Held-out greedy accuracy, reward and tokens/task after ${s.iterations} iterations (B = ${s.base.tasksPerIteration}, G = ${s.base.groupSize}, preset ${s.base.preset}, from ${s.start}); mean over ${s.seeds.length} training seeds with a 95% t-interval over seeds; ${s.evalN} held-out tasks (seed ${s.evalSeed}).`,
    '',
    '| variant | seeds | accuracy | reward | tokens/task | agents | last-iteration train reward |',
    '|---|---|---|---|---|---|---|',
    `| start (${s.start}) | – | ${f3(s.startScore.accuracy)} | ${f3(s.startScore.reward)} | ${f0(s.startScore.tokens)} | ${s.startScore.agents.toFixed(2)} | – |`,
  ];
  for (const v of s.variants) {
    const last = v.curve[v.curve.length - 1];
    lines.push(
      `| ${v.label} | ${v.seeds} | ${ci(v.accuracy)} | ${ci(v.reward)} | ${ci(v.tokens, f0)} | ${v.agents.toFixed(2)} | ${last ? f3(last.reward) : '–'} |`,
    );
  }
  return lines.join('\n');
}
