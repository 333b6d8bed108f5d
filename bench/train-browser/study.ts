/**
 * The training study `npm run bench:train` runs in a Web Worker in headless Chromium (also callable
 * from Node for a quick check). Two phases on the mixed preset, each with the same wall-clock
 * training budget, simulated sub-agents, the default TrainConfig:
 *
 * (a) from `random:0`: train until the budget is spent, then the greedy held-out reward of the
 *     trained policy vs the prior's on the same tasks (paired bootstrap of the reward difference);
 * (b) from `prior`: the same budget, then held-out accuracy and tokens/task vs the prior, with a
 *     95% paired bootstrap interval of the accuracy difference on the same tasks.
 *
 * Curves: every iteration's training metrics (train-split rollouts), and a small greedy held-out
 * evaluation every `curveEveryMs` of training time. Evaluation time is not counted in the budget.
 */
import { chooseBackend, type BackendChoice, type BackendPreference } from '../../src/gpu/index.ts';
import {
  DEFAULT_POOL,
  PolicyNetwork,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../../src/policy/index.ts';
import { simulatedRunners } from '../../src/executor/train-runners.ts';
import {
  Trainer,
  heldOutRollouts,
  pairedBootstrap,
  structureMarkdown,
  structureOf,
  trainConfig,
  type HeldOutRow,
  type TrainConfig,
} from '../../src/train/index.ts';

export interface StudyOptions {
  /** Training wall time per phase (ms), evaluation excluded. */
  budgetMs: number;
  /** Held-out tasks of the final comparison. */
  evalN: number;
  /** Held-out tasks of each curve point, and how often (training ms) one is taken. */
  curveN: number;
  curveEveryMs: number;
  evalSeed: number;
  backend: BackendPreference;
  /** Iterations each backend trains for in the backend probe (0 = no probe), and its time limit. */
  probeIterations: number;
  probeLimitMs: number;
}

export interface CurvePoint {
  iteration: number;
  trainMs: number;
  trainReward: number;
  trainAccuracy: number;
  tokens: number;
  kl: number;
  heldOutReward?: number;
  heldOutAccuracy?: number;
}

export interface Score {
  n: number;
  accuracy: number;
  reward: number;
  tokens: number;
  agents: number;
}

export interface PhaseResult {
  from: string;
  iterations: number;
  episodes: number;
  trainMs: number;
  curve: CurvePoint[];
  trained: Score;
  prior: Score;
  /** trained − prior on the same tasks, 95% paired bootstrap. */
  accuracyDiff: ReturnType<typeof pairedBootstrap>;
  rewardDiff: ReturnType<typeof pairedBootstrap>;
  /** Query-adaptive structure of the greedy designs per axis, prior → trained (markdown table). */
  structure: string;
}

export interface StudyResult {
  backend: string;
  backendReason: string;
  /** ms per iteration in the backend probe; null = not available or cut off. */
  probe: { backend: string; msPerIteration: number | null }[];
  config: TrainConfig;
  budgetMs: number;
  evalN: number;
  evalSeed: number;
  random: PhaseResult;
  fromPrior: PhaseResult;
}

type Progress = (line: string) => void;

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function scoreOf(rows: readonly HeldOutRow[]): Score {
  return {
    n: rows.length,
    accuracy: mean(rows.map((r) => (r.rollout.correct === true ? 1 : 0))),
    reward: mean(rows.map((r) => r.reward)),
    tokens: mean(rows.map((r) => r.rollout.tokens)),
    agents: mean(rows.map((r) => r.rollout.agents)),
  };
}

async function heldOut(
  cp: PolicyCheckpoint,
  config: TrainConfig,
  choice: BackendChoice,
  n: number,
  seed: number,
) {
  const net = await PolicyNetwork.create(cp, choice);
  try {
    return await heldOutRollouts({
      net,
      pool: DEFAULT_POOL,
      config,
      runners: simulatedRunners,
      n,
      seed,
      greedy: true,
    });
  } finally {
    net.dispose();
  }
}

async function probe(config: TrainConfig, choice: BackendChoice, iterations: number): Promise<number> {
  const t = await Trainer.create({
    start: randomCheckpoint(DEFAULT_POOL, 0),
    pool: DEFAULT_POOL,
    config,
    choice,
    runners: simulatedRunners,
  });
  try {
    await t.iterate();
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await t.iterate();
    return (performance.now() - t0) / iterations;
  } finally {
    t.dispose();
  }
}

async function phase(
  from: string,
  start: PolicyCheckpoint,
  priorRows: readonly HeldOutRow[],
  config: TrainConfig,
  choice: BackendChoice,
  o: StudyOptions,
  log: Progress,
): Promise<PhaseResult> {
  const trainer = await Trainer.create({
    start,
    pool: DEFAULT_POOL,
    config,
    choice,
    runners: simulatedRunners,
  });
  const curve: CurvePoint[] = [];
  let trainMs = 0;
  let nextCurve = 0;
  try {
    while (trainMs < o.budgetMs) {
      const t0 = performance.now();
      const m = await trainer.iterate();
      trainMs += performance.now() - t0;
      const p: CurvePoint = {
        iteration: m.iteration,
        trainMs: Math.round(trainMs),
        trainReward: m.meanReward,
        trainAccuracy: m.accuracy,
        tokens: m.tokens,
        kl: m.update.kl,
      };
      if (trainMs >= nextCurve) {
        const s = scoreOf(await heldOut(trainer.checkpoint, config, choice, o.curveN, o.evalSeed + 1));
        p.heldOutReward = s.reward;
        p.heldOutAccuracy = s.accuracy;
        nextCurve += o.curveEveryMs;
        log(
          `${from}: iteration ${m.iteration} · ${(trainMs / 1000).toFixed(0)} s · train reward ${m.meanReward.toFixed(3)} · held-out (n=${o.curveN}) reward ${s.reward.toFixed(3)} accuracy ${s.accuracy.toFixed(3)}`,
        );
      }
      curve.push(p);
    }
    const rows = await heldOut(trainer.checkpoint, config, choice, o.evalN, o.evalSeed);
    const ok = (rs: readonly HeldOutRow[]): number[] => rs.map((r) => (r.rollout.correct === true ? 1 : 0));
    return {
      from,
      iterations: trainer.iteration,
      episodes: trainer.iteration * config.tasksPerIteration * config.groupSize,
      trainMs: Math.round(trainMs),
      curve,
      trained: scoreOf(rows),
      prior: scoreOf(priorRows),
      accuracyDiff: pairedBootstrap(ok(priorRows), ok(rows), 11),
      rewardDiff: pairedBootstrap(
        priorRows.map((r) => r.reward),
        rows.map((r) => r.reward),
        12,
      ),
      structure: structureMarkdown(
        structureOf(priorRows, DEFAULT_POOL, { policy: 'prior', preset: config.preset, greedy: true }),
        structureOf(rows, DEFAULT_POOL, { policy: from, preset: config.preset, greedy: true }),
      ),
    };
  } finally {
    trainer.dispose();
  }
}

/**
 * ms per training iteration on one backend (after one warm-up iteration), or on the one `auto` picks,
 * with the backend that ran and why; ms null when the backend is not available. The page runs it in a worker of its own, so a slow adapter can be cut off.
 */
export async function probeBackend(
  backend: 'cpu' | 'webgpu' | 'auto',
  iterations: number,
): Promise<{ backend: string; reason: string; ms: number | null }> {
  const choice = await chooseBackend(backend);
  if (backend !== 'auto' && choice.backend !== backend)
    return { backend: choice.backend, reason: choice.reason, ms: null };
  try {
    const ms = await probe(trainConfig({ preset: 'mixed' }), choice, iterations);
    return { backend: choice.backend, reason: choice.reason, ms };
  } finally {
    choice.ctx?.dispose();
  }
}

export async function runStudy(
  o: StudyOptions,
  log: Progress,
  probes: { backend: string; msPerIteration: number | null }[] = [],
): Promise<StudyResult> {
  const config = trainConfig({ preset: 'mixed' });
  const choice = await chooseBackend(o.backend);
  log(`backend: ${choice.backend} (${choice.reason})`);
  const prior = priorCheckpoint(DEFAULT_POOL);
  const priorRows = await heldOut(prior, config, choice, o.evalN, o.evalSeed);
  log(`prior on ${o.evalN} held-out tasks: ${JSON.stringify(scoreOf(priorRows))}`);
  const random = await phase(
    'random:0',
    randomCheckpoint(DEFAULT_POOL, 0),
    priorRows,
    config,
    choice,
    o,
    log,
  );
  const fromPrior = await phase('prior', prior, priorRows, config, choice, o, log);
  return {
    backend: choice.backend,
    backendReason: choice.reason,
    probe: probes,
    config,
    budgetMs: o.budgetMs,
    evalN: o.evalN,
    evalSeed: o.evalSeed,
    random,
    fromPrior,
  };
}
