/**
 * Intermediate-answer signal: do the action-wise rewards have anything to say? MasHost rewards a
 * construction step by the change in intermediate correctness it causes (docs/policy.md,
 * "Rewards"); when every partial MAS is right from its first agent on, or never right, the rewards
 * carry no information about which actions helped. Over generated MASBench tasks of each axis,
 * this samples constructions from the `prior` and from a `random` checkpoint, runs every step's
 * partial MAS on the simulator, and counts how often the intermediate correctness changes. It also
 * reports the entropy of the prior's node distribution per step along its greedy constructions
 * (how much sampling from it explores), and the prior without its intermediate-answer rules (what
 * those rules change: steps and final accuracy).
 *
 * Each run is stored under a label with the commit it measured, so the same script run on older
 * code gives the "before" columns (bench/results/signal.json keeps every label; the docs section
 * compares them all):
 *
 *   npm run bench:signal -- --label "<what this code is>"
 */
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { ConstructionStep } from '../src/core/trace.ts';
import { runDesign } from '../src/executor/run.ts';
import { simulatedBackend } from '../src/executor/sim/index.ts';
import {
  generateTask,
  taskOfMasbench,
  taskSeed,
  type Axis,
  type MasBenchTask,
} from '../src/masbench/index.ts';
import type { PolicyCheckpoint } from '../src/policy/checkpoint.ts';
import { stateDimFor } from '../src/policy/encoder.ts';
import { PolicyNetwork, encoderConfig, randomCheckpoint } from '../src/policy/network.ts';
import { priorCheckpoint } from '../src/policy/prior.ts';
import { DEFAULT_POOL } from '../src/policy/roles.ts';
import { construct } from '../src/policy/episode.ts';
import type { IntermediateRunner } from '../src/policy/step-types.ts';
import { machine, writeDocSection, writeResults } from './report.ts';

const HEADING = 'Intermediate-answer signal';
const RESULTS = 'signal';
const AXES: readonly Axis[] = ['depth', 'breadth', 'parallel', 'horizon', 'robustness'];
const VALUES = [3, 5, 7, 9];
/** Tasks per axis value: task k has seed taskSeed(BASE_SEED, k); 4 values × 10 = 40 tasks per axis. */
const PER_VALUE = 10;
const BASE_SEED = 2026;
/** Steps whose node entropy is reported (1-based). */
const ENTROPY_STEPS = 6;

interface Metrics {
  constructions: number;
  /** Mean steps per construction, EXIT included. */
  steps: number;
  /** Share whose first step's partial MAS (one agent) is right. */
  first_right: number;
  /** Share whose partial MAS is right after every step. */
  all_right: number;
  /** Share whose partial MAS is wrong after every step. */
  all_wrong: number;
  /** Share with at least one change of correctness between consecutive steps (from step 2 on). */
  any_change: number;
  /** Changes of correctness between consecutive steps, per step from step 2 on. */
  changes_per_step: number;
  /** Share of the final designs (the EXIT step's MAS) that are right. */
  final_right: number;
  /** Share of intermediate answers that are a refusal (start with REFUSE). */
  refusals: number;
}

interface EntropyRow {
  axis: Axis;
  /** Mean node entropy (nats) at steps 1..ENTROPY_STEPS over the tasks that reach the step. */
  entropy: (number | null)[];
  /** Tasks that reach each step. */
  reached: number[];
  /** Mean probability of the most probable action at step 1. */
  first_top: number;
}

interface Run {
  label: string;
  commit: string;
  date: string;
  node: string;
  elapsed_s: number;
  signal: { policy: string; axis: Axis; metrics: Metrics }[];
  entropy: EntropyRow[];
}

interface Results {
  tasks: { axes: readonly Axis[]; values: number[]; per_value: number; base_seed: number };
  runs: Run[];
}

const round = (x: number, d = 3): number => Math.round(x * 10 ** d) / 10 ** d;
const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

function commitOf(): string {
  try {
    const head = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    const dirty = execSync('git status --porcelain --untracked-files=no', { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head}+changes` : head;
  } catch {
    return 'unknown';
  }
}

function tasksOf(axis: Axis): MasBenchTask[] {
  return VALUES.flatMap((value) =>
    Array.from({ length: PER_VALUE }, (_, k) => generateTask({ axis, value, seed: taskSeed(BASE_SEED, k) })),
  );
}

/** Runs each partial MAS on the simulator with the construction's seed, as the Build page does. */
const simulatorRunner =
  (mb: MasBenchTask, seed: number): IntermediateRunner =>
  async (design, task) => {
    const t = await runDesign({
      trace: minimalTrace({ query: task.query }),
      design,
      task,
      backend: simulatedBackend(mb, seed),
      startedAt: new Date(0).toISOString(),
    });
    return { answer: t.result.finalAnswer, correct: t.result.correct };
  };

const isRefusal = (a: string | null | undefined): boolean =>
  (a ?? '').trim().toUpperCase().startsWith('REFUSE');

function metricsOf(constructions: readonly ConstructionStep[][]): Metrics {
  const c = constructions.map((steps) => steps.map((s) => s.intermediateCorrect === true));
  let changes = 0;
  let comparable = 0;
  for (const xs of c) {
    for (let t = 1; t < xs.length; t++) {
      comparable += 1;
      if (xs[t] !== xs[t - 1]) changes += 1;
    }
  }
  const share = (f: (xs: boolean[]) => boolean): number => round(mean(c.map((xs) => (f(xs) ? 1 : 0))));
  const answers = constructions.flat();
  return {
    constructions: c.length,
    steps: round(mean(c.map((xs) => xs.length)), 2),
    first_right: share((xs) => xs[0] === true),
    all_right: share((xs) => xs.every((x) => x)),
    all_wrong: share((xs) => xs.every((x) => !x)),
    any_change: share((xs) => xs.some((x, t) => t > 0 && x !== xs[t - 1])),
    changes_per_step: round(comparable === 0 ? 0 : changes / comparable),
    final_right: share((xs) => xs[xs.length - 1] === true),
    refusals: round(mean(answers.map((s) => (isRefusal(s.intermediateAnswer) ? 1 : 0)))),
  };
}

/** The prior with its intermediate-answer rules removed (what the answer features change). */
const NO_ANSWER_RULES = 'prior without answer rules';

/** `cp` with the node terms of the intermediate-answer features (the `RESULT` rows of L) set to 0. */
function withoutAnswerRules(cp: PolicyCheckpoint): PolicyCheckpoint {
  const A = cp.config.roles.length + 2;
  const rows = stateDimFor(encoderConfig(cp.config), 1);
  const lin = cp.params['node.lin'] ?? [];
  return {
    ...cp,
    name: `${cp.name} without answer rules`,
    params: { ...cp.params, 'node.lin': lin.map((x, i) => (i < rows * A ? x : 0)) },
  };
}

const entropyOf = (ps: readonly number[]): number =>
  -ps.reduce((a, p) => (p > 0 ? a + p * Math.log(p) : a), 0);

async function measure(label: string): Promise<Run> {
  const t0 = performance.now();
  const pool = DEFAULT_POOL;
  const prior = priorCheckpoint(pool);
  const policies: { name: string; checkpoint: PolicyCheckpoint }[] = [
    { name: 'prior', checkpoint: prior },
    { name: 'random:0', checkpoint: randomCheckpoint(pool, 0) },
    { name: NO_ANSWER_RULES, checkpoint: withoutAnswerRules(prior) },
  ];
  const signal: Run['signal'] = [];
  const entropy: EntropyRow[] = [];
  for (const p of policies) {
    const net = await PolicyNetwork.cpu(p.checkpoint);
    try {
      for (const axis of AXES) {
        const sampled: ConstructionStep[][] = [];
        const greedy: ConstructionStep[][] = [];
        for (const mb of tasksOf(axis)) {
          const task = taskOfMasbench(mb);
          const runner = simulatorRunner(mb, mb.seed);
          const c = await construct({ policy: net, pool, task, seed: mb.seed, runner });
          sampled.push(c.steps);
          if (p.name === 'prior') {
            const g = await construct({ policy: net, pool, task, seed: mb.seed, runner, greedy: true });
            greedy.push(g.steps);
          }
        }
        signal.push({ policy: p.name, axis, metrics: metricsOf(sampled) });
        if (p.name === 'prior') {
          const at = (t: number): number[] =>
            greedy.flatMap((steps) => {
              const s = steps[t];
              return s ? [entropyOf(s.roleDistribution.map((d) => d.p))] : [];
            });
          entropy.push({
            axis,
            entropy: Array.from({ length: ENTROPY_STEPS }, (_, t) =>
              at(t).length > 0 ? round(mean(at(t))) : null,
            ),
            reached: Array.from({ length: ENTROPY_STEPS }, (_, t) => at(t).length),
            first_top: round(
              mean(greedy.map((steps) => Math.max(...(steps[0]?.roleDistribution ?? []).map((d) => d.p)))),
            ),
          });
        }
      }
    } finally {
      net.dispose();
    }
  }
  return {
    label,
    commit: commitOf(),
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    elapsed_s: round((performance.now() - t0) / 1000, 1),
    signal,
    entropy,
  };
}

const fmt = (x: number | null | undefined, d = 2): string =>
  x === null || x === undefined ? '–' : x.toFixed(d);

function signalTable(runs: readonly Run[]): string {
  const head = [
    '| policy | axis |',
    ...runs.map(
      (_, i) =>
        ` changed ${String.fromCharCode(65 + i)} | all right ${String.fromCharCode(65 + i)} | step 1 right ${String.fromCharCode(65 + i)} |`,
    ),
  ].join('');
  const rule = `|---|---|${runs.map(() => '---:|---:|---:|').join('')}`;
  const keys = [...new Set(runs.flatMap((r) => r.signal.map((x) => `${x.policy}\u0000${x.axis}`)))];
  const rows = keys.map((key) => {
    const [policy = '', axis = ''] = key.split('\u0000');
    const cells = runs.map((r) => {
      const m = r.signal.find((s) => s.policy === policy && s.axis === axis)?.metrics;
      return ` ${fmt(m?.any_change)} | ${fmt(m?.all_right)} | ${fmt(m?.first_right)} |`;
    });
    return `| ${policy} | ${axis} |${cells.join('')}`;
  });
  return [head, rule, ...rows].join('\n');
}

function detailTable(run: Run): string {
  const head =
    '| policy | axis | steps | step 1 right | all right | all wrong | changed | changes / step | final right | refusals |';
  const rule = '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|';
  const rows = run.signal.map(
    ({ policy, axis, metrics: m }) =>
      `| ${policy} | ${axis} | ${fmt(m.steps, 1)} | ${fmt(m.first_right)} | ${fmt(m.all_right)} | ${fmt(m.all_wrong)} | ${fmt(m.any_change)} | ${fmt(m.changes_per_step)} | ${fmt(m.final_right)} | ${fmt(m.refusals)} |`,
  );
  return [head, rule, ...rows].join('\n');
}

function entropyTable(runs: readonly Run[]): string {
  const steps = Array.from({ length: ENTROPY_STEPS }, (_, t) => t + 1);
  const head = `| run | axis | ${steps.map((t) => `H step ${t}`).join(' | ')} | p(top) step 1 |`;
  const rule = `|---|---|${steps.map(() => '---:|').join('')}---:|`;
  const rows = runs.flatMap((r, i) =>
    r.entropy.map(
      (e) =>
        `| ${String.fromCharCode(65 + i)} | ${e.axis} | ${e.entropy.map((h, t) => (h === null ? '–' : `${fmt(h)} (${e.reached[t] ?? 0})`)).join(' | ')} | ${fmt(e.first_top, 3)} |`,
    ),
  );
  return [head, rule, ...rows].join('\n');
}

async function main(): Promise<void> {
  const label = argValue('--label') ?? 'current';
  const file = join(import.meta.dirname, 'results', `${RESULTS}.json`);
  const stored: Results | null = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as Results)
    : null;
  const run = await measure(label);
  const runs = [...(stored?.runs ?? []).filter((r) => r.label !== label), run];
  const results: Results = {
    tasks: { axes: AXES, values: VALUES, per_value: PER_VALUE, base_seed: BASE_SEED },
    runs,
  };
  writeResults(RESULTS, results);
  const { cpu, cores } = machine();
  const legend = runs
    .map(
      (r, i) =>
        `- **${String.fromCharCode(65 + i)}** — ${r.label}: commit \`${r.commit}\`, measured ${r.date} (Node ${r.node}, ${r.elapsed_s} s).`,
    )
    .join('\n');
  writeDocSection(
    HEADING,
    `Measured with \`npm run bench:signal -- --label "<label>"\` (bench/signal.bench.ts, on ${cores} × ${cpu});
every run is kept under its label in \`bench/results/signal.json\`, so each column below is the same
script on the code of the commit it names. Tasks: MASBench ${AXES.join(', ')}, values ${VALUES.join(', ')},
${PER_VALUE} tasks per value (task k with seed \`taskSeed(${BASE_SEED}, k)\`), i.e. ${VALUES.length * PER_VALUE} tasks per
axis. On each task one construction is sampled (τ = 1, seed = the task's seed) from the \`prior\`,
from the \`random:0\` checkpoint and (in runs that have the row) from the prior without its
intermediate-answer rules, and after every step its partial MAS runs on the simulator with that
seed (as the Build page does); the EXIT step's MAS is the final design. "–": not measured in that
run.

${legend}

Per policy and axis (${VALUES.length * PER_VALUE} constructions each): **changed** — share of constructions whose
intermediate correctness changes at least once between consecutive steps (from step 2 on; the
action-wise reward then tells a helpful step from a harmful one); **all right** — share right after
every step, from the first agent on (every reward is the right → right bonus: no signal); **step 1
right** — share whose first agent alone answers right.

${signalTable(runs)}

Node entropy of the prior (nats; π_node at τ = 1, masked actions excluded) per step along its greedy
constructions on the same tasks, executed on the simulator; in brackets the tasks that reach the
step; the last column is the mean probability of the most probable action at step 1. The maximum is
ln 10 ≈ 2.30 at step 1 (DELETE and EXIT are masked) and ln 12 ≈ 2.48 later.

${entropyTable(runs)}

All measures of the latest run (${String.fromCharCode(64 + runs.length)}):

${detailTable(run)}
`,
  );
  console.log(detailTable(run));
  console.log();
  console.log(signalTable(runs));
  console.log();
  console.log(entropyTable(runs));
}

await main();
