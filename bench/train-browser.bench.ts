/**
 * `npm run bench:train`: training in the tab. Builds bench/train-browser (a page whose Web Worker
 * runs src/train on the compute core with the simulated sub-agents), opens it in headless Chromium
 * (/usr/bin/chromium, WebGPU on SwiftShader) and runs the study of bench/train-browser/study.ts:
 * (a) from random, a wall-clock training budget on the mixed preset, then held-out greedy reward vs
 * the prior's; (b) from the prior, the same budget, then held-out accuracy and tokens/task vs the
 * prior with a 95% paired bootstrap interval of the accuracy difference. The backend is chosen by
 * a short probe: the TypeScript backend against the one `auto` picks (the wasm backend beside
 * SwiftShader), each in a worker of its own in the same run; the faster trains. Writes bench/results/train-browser.json and the
 * "## Training in the tab" section of docs/benchmarks.md.
 *
 * Options: --budget-s S (training seconds per phase, default 300), --eval-n N (default 200),
 * --curve-n N (default 50), --backend auto|cpu|wasm|webgpu (default auto: probe), --no-doc, --render
 * (rewrite the docs section from bench/results/train-browser.json without running).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { onBenchPage } from './browser-page.ts';
import type { PhaseResult, StudyOptions, StudyResult } from './train-browser/study.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const config = join(root, 'bench/train-browser.vite.config.ts');
const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const budgetS = Number(arg('budget-s', '300'));
const options: StudyOptions = {
  budgetMs: budgetS * 1000,
  evalN: Number(arg('eval-n', '200')),
  curveN: Number(arg('curve-n', '50')),
  curveEveryMs: Math.max(5000, (budgetS * 1000) / 10),
  evalSeed: 1,
  backend: arg('backend', 'auto') as StudyOptions['backend'],
  probeIterations: 2,
  probeLimitMs: 120_000,
};

async function inChromium(): Promise<StudyResult> {
  return onBenchPage(config, 'runTrainBench', { timeoutMs: 0, log: true }, (page) =>
    page.evaluate((o) => window.runTrainBench(o), options),
  );
}

const f3 = (x: number): string => x.toFixed(3);
const ci = (d: PhaseResult['accuracyDiff']): string =>
  `${d.difference >= 0 ? '+' : ''}${f3(d.difference)} [${f3(d.interval[0])}, ${f3(d.interval[1])}]`;

/** An ASCII plot of held-out reward over training time for both phases. */
function asciiCurve(r: StudyResult, width = 60, height = 12): string {
  const series = [
    { mark: 'r', phase: r.random },
    { mark: 'p', phase: r.fromPrior },
  ];
  const pts = series.flatMap((s) =>
    s.phase.curve.flatMap((c) =>
      c.heldOutReward === undefined ? [] : [{ mark: s.mark, x: c.trainMs, y: c.heldOutReward }],
    ),
  );
  if (pts.length === 0) return '';
  const xMax = Math.max(...pts.map((p) => p.x), 1);
  const ys = [...pts.map((p) => p.y), r.fromPrior.prior.reward];
  const yMin = Math.min(...ys);
  const yMax = Math.max(...ys);
  const span = yMax - yMin || 1;
  const grid = Array.from({ length: height }, () => Array.from({ length: width }, () => ' '));
  const row = (y: number): number => height - 1 - Math.round(((y - yMin) / span) * (height - 1));
  const priorRow = row(r.fromPrior.prior.reward);
  for (let x = 0; x < width; x++) (grid[priorRow] as string[])[x] = '-';
  for (const p of pts) (grid[row(p.y)] as string[])[Math.round((p.x / xMax) * (width - 1))] = p.mark;
  return [
    `held-out greedy reward (y: ${f3(yMin)} … ${f3(yMax)}) over training seconds (x: 0 … ${(xMax / 1000).toFixed(0)} s);`,
    `r = from random, p = from prior, --- = the prior's reward on the final held-out tasks`,
    '',
    ...grid.map((g) => `|${g.join('')}`),
    `+${'-'.repeat(width)}`,
  ].join('\n');
}

type Recorded = StudyResult & { measured?: { date: string; load: [number, number, number] } };

function doc(r: Recorded): string {
  const measured = r.measured ?? { date: new Date().toISOString().slice(0, 10), load: loadAverage() };
  const { cpu, cores } = machine();
  const a = r.random;
  const b = r.fromPrior;
  const perIteration = r.config.tasksPerIteration * r.config.groupSize;
  const epsPerS = (p: PhaseResult): string => (p.episodes / (p.trainMs / 1000)).toFixed(1);
  return [
    'The trainer in a Web Worker in headless Chromium (`/usr/bin/chromium`), mixed preset, simulated',
    'sub-agents (a simulation, not LLM calls), default `TrainConfig`, the same wall-clock training budget',
    `for each phase (held-out evaluations are not counted in it). Command: \`npm run bench:train\``,
    `(writes \`bench/results/train-browser.json\`). Held-out: ${r.evalN} test-split tasks (seed ${r.evalSeed}), greedy`,
    'constructions; differences are trained − prior on the same tasks with a 95% paired bootstrap',
    'interval (4,000 resamples of the tasks).',
    '',
    `- Measured ${measured.date} on ${cores} CPU cores (${cpu}), shared with other work (load average at the end ${measured.load.join(', ')}).`,
    `- Backend: ${r.backend} (${r.backendReason})${r.probe.length ? `; chosen by a probe of 2 timed iterations per backend in its own worker (cut off after 120 s): ${r.probe.map((p) => `${p.backend} ${p.msPerIteration === null ? 'not finished / not available' : `${p.msPerIteration.toFixed(0)} ms/iteration (${((1000 * perIteration) / p.msPerIteration).toFixed(1)} episodes/s)`}`).join(', ')}` : ''}.`,
    `- Budget per phase: ${(r.budgetMs / 1000).toFixed(0)} s of training.`,
    `- Goal (a), from random the greedy held-out reward exceeds the prior's: ${a.trained.reward > a.prior.reward ? 'met' : '**not met**'} (${f3(a.trained.reward)} vs ${f3(a.prior.reward)}).`,
    `- Goal (b), from the prior held-out accuracy +5 points or more with the 95% interval above 0, at no more tokens/task: ${b.accuracyDiff.difference >= 0.05 && b.accuracyDiff.interval[0] > 0 && b.trained.tokens <= b.prior.tokens ? 'met' : '**not met**'} (${ci(b.accuracyDiff)}; tokens ${b.trained.tokens.toFixed(0)} vs ${b.prior.tokens.toFixed(0)}).`,
    '',
    '| phase | iterations | episodes | episodes/s | held-out accuracy | reward | tokens/task | agents | accuracy − prior [95% CI] | reward − prior [95% CI] |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---|',
    `| prior (untrained) | – | – | – | ${f3(b.prior.accuracy)} | ${f3(b.prior.reward)} | ${b.prior.tokens.toFixed(0)} | ${b.prior.agents.toFixed(2)} | – | – |`,
    ...[a, b].map(
      (p) =>
        `| (${p === a ? 'a' : 'b'}) from ${p.from} | ${p.iterations} | ${p.episodes} | ${epsPerS(p)} | ${f3(p.trained.accuracy)} | ${f3(p.trained.reward)} | ${p.trained.tokens.toFixed(0)} | ${p.trained.agents.toFixed(2)} | ${ci(p.accuracyDiff)} | ${ci(p.rewardDiff)} |`,
    ),
    '',
    '```',
    asciiCurve(r),
    '```',
    '',
    `The config (every field): \`${JSON.stringify(r.config)}\`.`,
    '',
    ...[a, b].flatMap((p) =>
      p.structure
        ? [
            `What the greedy designs look like per axis, prior → (${p === a ? 'a' : 'b'}) trained from ${p.from}, on the same ${r.evalN} held-out tasks (share of designs using a role):`,
            '',
            p.structure,
            '',
          ]
        : [],
    ),
  ].join('\n');
}

// --render: rewrite the docs section from the last results file without running the study again.
const result: Recorded = argv.includes('--render')
  ? (JSON.parse(readFileSync(join(root, 'bench/results/train-browser.json'), 'utf8')) as Recorded)
  : {
      ...(await inChromium()),
      measured: { date: new Date().toISOString().slice(0, 10), load: loadAverage() },
    };
if (!argv.includes('--render')) writeResults('train-browser', result);
const body = doc(result);
if (!argv.includes('--no-doc')) writeDocSection('Training in the tab', body);
console.log(body);
process.exit(0);
