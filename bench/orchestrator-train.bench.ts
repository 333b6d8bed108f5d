/**
 * `npm run bench:orchestrator-train`: GRPO of the orchestrator LM in the tab, driven through the real
 * Train page. Serves a built app (dist/, or `--dist DIR`) with the headers `vite preview` sends,
 * opens `#/train` in headless Chromium (/usr/bin/chromium, tests/support/chromium.ts), switches to
 * the "Orchestrator LM" mode, picks the SFT model (`--model`, default v2) and the compute choice
 * (`--backend`, default auto: the worker's probe picks), clicks Start and pauses when the next
 * iteration would pass the wall budget (`--minutes`, counted from the click, so the model load and
 * the probe count too). Then the page's "Evaluate" runs the held-out before/after (SFT vs current
 * weights on the same test-split queries, paired bootstrap 95% intervals), and "Download metrics"
 * gives every iteration's metrics (what the charts draw) and that evaluation. Simulated sub-agents
 * (the simulator's fast path), not LLM calls.
 *
 * Writes bench/results/orchestrator-train.json and the "## Orchestrator LM: GRPO training in
 * Chromium" section of docs/benchmarks.md (`--no-doc` skips both: the quick check's way). The same loop in Node:
 * `npm run bench:orchestrator-train-node`.
 *
 *   npm run bench:orchestrator-train [-- --minutes 10 --eval-tasks 100 --model v2 --backend auto
 *     --seed 1 --set tasksPerIteration=4,groupSize=4]
 *   quick smoke check: -- --minutes 0.5 --eval-tasks 4 --no-doc
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { launchChromium } from '../tests/support/chromium.ts';
import { ISOLATION_HEADERS, serveStatic } from '../tests/e2e/static-server.ts';
import {
  downloadOrchRun,
  openOrchMode,
  pickOrchModel,
  orchProblems,
  orchStatus,
  setOrchField,
  waitOrchPaused,
} from '../tests/support/orch-train-page.ts';
import { OrchEvaluationSchema, OrchMetricsSchema } from '../src/workers/train-orchestrator.methods.ts';
import { curveTable, heldOutTable, throughputOf, throughputTable } from './orchestrator-train-report.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'eval-tasks': { type: 'string', default: '100' },
    model: { type: 'string', default: 'v2' },
    backend: { type: 'string', default: 'auto' },
    seed: { type: 'string', default: '1' },
    set: { type: 'string', default: '' },
    dist: { type: 'string', default: 'dist' },
    'no-doc': { type: 'boolean', default: false },
    render: { type: 'boolean', default: false },
  },
});
const MODELS: Record<string, string> = {
  v1: 'baton-orchestrator-tiny',
  v2: 'baton-orchestrator-tiny-v2',
};
const modelId = MODELS[values.model] ?? values.model;
const minutes = Number(values.minutes);
const evalTasks = Number(values['eval-tasks']);
if (!(minutes > 0) || !(evalTasks >= 1)) throw new Error('--minutes must be > 0 and --eval-tasks ≥ 1');
if (!['auto', 'cpu', 'wasm', 'webgpu'].includes(values.backend))
  throw new Error(`--backend must be auto, cpu, wasm or webgpu, got "${values.backend}"`);
/** Extra numeric settings of the page's form, `key=value,…` (the page's defaults otherwise). */
const extra = values.set
  .split(',')
  .filter((kv) => kv.trim() !== '')
  .map((kv) => {
    const [k, v] = kv.split('=');
    if (!k || v === undefined || !Number.isFinite(Number(v))) throw new Error(`--set: bad "${kv}"`);
    return [k.trim(), Number(v)] as const;
  });

/** The downloaded run file, read as untrusted input. */
const RunFileSchema = z.object({
  format: z.literal('baton.orchestrator-run/1'),
  model: z.object({ id: z.string(), name: z.string().optional(), params: z.number().optional() }).loose(),
  backend: z.object({ backend: z.string(), reason: z.string() }).nullable(),
  settings: z.record(z.string(), z.unknown()),
  iteration: z.number().int(),
  history: z.array(OrchMetricsSchema).max(100_000),
  evaluation: OrchEvaluationSchema.nullable(),
});

const now = (): number => performance.now();
const loads: { atS: number; load: [number, number, number] }[] = [];

async function inChromium() {
  const { url, server } = await serveStatic(resolve(values.dist), 0, ISOLATION_HEADERS);
  const browser = await launchChromium();
  const errors: string[] = [];
  try {
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.setDefaultTimeout(120_000);
    await page.goto(`${url}#/train`);
    await openOrchMode(page);
    await pickOrchModel(page, modelId);
    await page.getByTestId('orch-compute').selectOption(values.backend);
    await setOrchField(page, 'iterations', 1_000_000);
    await setOrchField(page, 'evalTasks', evalTasks);
    await setOrchField(page, 'seed', Number(values.seed));
    for (const [k, v] of extra) await setOrchField(page, k, v);

    const t0 = now();
    loads.push({ atS: 0, load: loadAverage() });
    await page.getByTestId('orch-start').click();
    let firstIterationS: number | null = null;
    let seen = 0;
    let lastAt = t0;
    let lastMs = 0;
    let firstAt: number | null = null;
    let nextLoad = 60_000;
    for (;;) {
      await page.waitForTimeout(250);
      const { status, iteration } = await orchStatus(page);
      if (status === 'error') throw new Error(`the run failed: ${await orchProblems(page)}`);
      const t = now();
      if (iteration > seen) {
        if (seen === 0) {
          firstIterationS = (t - t0) / 1000;
          firstAt = t;
        } else lastMs = (t - lastAt) / (iteration - seen);
        seen = iteration;
        lastAt = t;
        console.log(`iteration ${iteration} at ${((t - t0) / 1000).toFixed(0)} s (${status})`);
      }
      if (t - t0 >= nextLoad) {
        loads.push({ atS: Math.round((t - t0) / 1000), load: loadAverage() });
        nextLoad += 60_000;
      }
      // The iteration in flight finishes after a pause; pause once the one after it would end
      // past the budget (an iteration's time: the latest, or the mean since the first if longer).
      if (status === 'running' && seen > 0) {
        const mean = seen > 1 && firstAt !== null ? (lastAt - firstAt) / (seen - 1) : lastAt - t0;
        const per = Math.max(lastMs, mean);
        if (lastAt - t0 + 2 * per >= minutes * 60_000) break;
      }
      if (t - t0 >= minutes * 60_000) break;
    }
    await page.getByTestId('orch-pause').click();
    await waitOrchPaused(page, 1, 30 * 60_000);
    const trainS = (now() - t0) / 1000;
    loads.push({ atS: Math.round(trainS), load: loadAverage() });
    const backendText = (await page.getByTestId('orch-backend').textContent()) ?? '';
    const modelText = (await page.getByTestId('orch-sft-model').textContent()) ?? '';
    console.log(`paused after ${trainS.toFixed(0)} s · ${backendText}`);

    const te = now();
    await page.getByTestId('orch-evaluate').click();
    await page.getByTestId('orch-eval-table').waitFor({ timeout: 60 * 60_000 });
    await page.waitForFunction(
      () =>
        document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status') !== 'evaluating',
      undefined,
      { timeout: 60_000 },
    );
    const evalS = (now() - te) / 1000;
    const diffText = (await page.getByTestId('orch-eval-diff').textContent()) ?? '';
    const chartPoints = Number(await page.getByTestId('train-chart-orch-reward').getAttribute('data-points'));
    const file = RunFileSchema.parse(JSON.parse(await downloadOrchRun(page)));
    if (file.evaluation === null) throw new Error('the run file has no evaluation');
    return {
      file: { ...file, evaluation: file.evaluation },
      backendText,
      modelText,
      diffText,
      chartPoints,
      trainS,
      firstIterationS,
      evalS,
      errors,
    };
  } finally {
    await browser.close();
    await new Promise<void>((ok) => server.close(() => ok()));
  }
}

type Recorded = {
  date: string;
  machine: ReturnType<typeof machine>;
  loads: typeof loads;
  minutes: number;
  compute?: string;
  model: z.infer<typeof RunFileSchema>['model'];
  backend: { backend: string; reason: string };
  backendText: string;
  trainSeconds: number;
  firstIterationSeconds: number | null;
  evalSeconds: number;
  settings: Record<string, unknown>;
  curve: z.infer<typeof OrchMetricsSchema>[];
  heldOut: z.infer<typeof OrchEvaluationSchema>;
  throughput: ReturnType<typeof throughputOf>;
  pageErrors: string[];
};

async function measure(): Promise<Recorded> {
  const r = await inChromium();
  const rec: Recorded = {
    date: new Date().toISOString().slice(0, 10),
    machine: machine(),
    loads,
    minutes,
    compute: values.backend,
    model: r.file.model,
    backend: r.file.backend ?? { backend: '?', reason: '?' },
    backendText: r.backendText,
    trainSeconds: Math.round(r.trainS),
    firstIterationSeconds: r.firstIterationS,
    evalSeconds: Math.round(r.evalS),
    settings: r.file.settings,
    curve: r.file.history,
    heldOut: r.file.evaluation,
    throughput: throughputOf(r.file.history),
    pageErrors: r.errors,
  };
  // --no-doc (the quick check) leaves the recorded run alone: neither the results file nor the docs.
  if (!values['no-doc'])
    writeResults('orchestrator-train', { ...rec, pageDiffText: r.diffText, chartPoints: r.chartPoints });
  return rec;
}

function doc(rec: Recorded): string {
  const { curve, heldOut: ev, throughput, machine: mach } = rec;
  const s = rec.settings as Record<string, number | string | number[]>;
  const vs = Array.isArray(s.values) ? s.values : [];
  const loadText = rec.loads
    .map((l) => `${l.load.map((x) => x.toFixed(1)).join(' / ')} at ${l.atS} s`)
    .join('; ');
  const over = rec.trainSeconds - rec.minutes * 60;
  const m = rec.model;
  return [
    `GRPO of the orchestrator LM in the tab: the real Train page's "Orchestrator LM" mode in headless Chromium (\`/usr/bin/chromium\`, WebGPU on SwiftShader available), its training worker, on simulated sub-agents (the simulator's fast path, a simulation, not LLM calls). The benchmark picks the SFT model and the compute choice in the page, clicks Start, pauses when the iteration after the one in flight would end past the wall budget (counted from the click: model load and probe included; the iteration in flight finishes), clicks "Evaluate the SFT model and the current weights", and reads the curves and the evaluation from "Download metrics (JSON)". Command: \`npm run bench:orchestrator-train${rec.minutes === 10 ? '' : ` -- --minutes ${rec.minutes}`}\` (bench/orchestrator-train.bench.ts; writes \`bench/results/orchestrator-train.json\`; \`--render\` rewrites this section from it); quick check: \`-- --minutes 0.5 --eval-tasks 4 --no-doc\`.`,
    '',
    `- Measured ${rec.date} on ${mach.cores} × ${mach.cpu} (no GPU), Node ${mach.node}, shared with other work: load averages (1 / 5 / 15 min) ${loadText}. Times are noisy.`,
    `- SFT model: \`${m.id}\`${m.params === undefined ? '' : ` (${m.params.toLocaleString('en-US')} parameters, ${String(m.positions)} positions)`}, picked in the page's "SFT model" choice.`,
    `- Compute choice \`${rec.compute ?? 'auto'}\`; the page's backend line: **${rec.backendText}**.`,
    `- Settings (the page's form): B ${s.tasksPerIteration} queries × G ${s.groupSize} designs per iteration (DoM ${s.dom}), τ ${s.temperature}, λ ${s.lambda}, β_KL ${s.klCoef}, β_H ${s.entropyCoef}, Adam lr ${s.lr}, at most ${s.maxNewTokens} design tokens, axis values ${vs.length ? `${Math.min(...vs)}–${Math.max(...vs)}` : '?'}, seed ${s.seed}; the rest the trainer's defaults (advantage mean, ε 0.2, 1 epoch, minibatch 8, packRows 5).`,
    `- Budget ${rec.minutes} min from Start: ${curve.length} iterations; the first done ${rec.firstIterationSeconds?.toFixed(0) ?? '–'} s after Start (model load, probe and the iteration); paused at ${rec.trainSeconds} s${over > 0 ? ` (${over} s past the budget: the first five iterations took ${throughputSeconds(curve.slice(0, 5))} s each on average and the last five ${throughputSeconds(curve.slice(-5))} s, so the last one ran longer than the stopping rule expected)` : ''}. The held-out evaluation (not in the budget) took ${rec.evalSeconds} s.`,
    ...(rec.pageErrors.length ? [`- Page errors: ${rec.pageErrors.join(' | ')}`] : []),
    '',
    "**Curves** (the sampled designs of each iteration, as the page's charts draw them; accuracy and tokens are the simulator's):",
    '',
    ...curveTable(curve),
    '',
    `**Held-out** (the page's before/after: ${ev.before.n} queries = ${ev.tasks} test-split tasks × low and high DoM, greedy, the same simulated sub-agents for both; after ${ev.iteration} iterations):`,
    '',
    ...heldOutTable(ev),
    '',
    `**Throughput** of the iteration on the ${rec.backend.backend} backend in Chromium (from the per-iteration timings):`,
    '',
    ...throughputTable(throughput),
    '',
    'Rollout tokens are the tokens the model wrote (forced ones included) over the sampling time; update tokens are prompt + design tokens of the designs the updates trained on, over the update phase (the reference pass for the KL term included).',
  ].join('\n');
}

/** Mean seconds per iteration (sampling + simulator + update) of these iterations. */
const throughputSeconds = (c: readonly z.infer<typeof OrchMetricsSchema>[]): string =>
  throughputOf(c).iterationSeconds.toFixed(0);

const rec: Recorded = values.render
  ? (JSON.parse(readFileSync('bench/results/orchestrator-train.json', 'utf8')) as Recorded)
  : await measure();
const body = doc(rec);
if (!values['no-doc']) writeDocSection('Orchestrator LM: GRPO training in Chromium', body);
console.log(body);
if (rec.pageErrors.length) console.error(`page errors: ${rec.pageErrors.join(' | ')}`);
process.exit(0);
