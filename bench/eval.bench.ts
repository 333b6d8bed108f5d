/**
 * The evaluation harness (docs/eval.md):
 *
 * 1. Throughput on the simulator: 5 methods × 5 MASBench cells × 20 tasks = 500 runs through
 *    `runEvaluation` + `evalExecutor`, jobs one at a time (the baseline) and 8 at once (methods in
 *    parallel), with the simulator answering at once (CPU-bound) and sleeping 2% of its modelled
 *    latency per call (latency-bound, as a provider is). Tasks per second, median of 3 rounds
 *    taken in turns.
 * 2. The Evaluate page's main thread (Chromium, dist/ served locally): the longest task a
 *    PerformanceObserver ('longtask') sees while the page runs an evaluation with 5,000 traces in
 *    its results (the worker runs it; rows and traces arrive as messages and go to IndexedDB) and
 *    renders the results, against the same page with 500 traces as the baseline.
 *
 *   npm run bench:eval      (builds dist/ first)
 *
 * Rows go to bench/results/eval.json; the tables to the "Evaluation" section of docs/benchmarks.md.
 */
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { masbenchTasks, runEvaluation, type EvalConfig } from '../src/eval/index.ts';
import { evalExecutor } from '../src/executor/eval-exec.ts';
import { serveStatic } from '../tests/e2e/static-server.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

/** tests/e2e/browser.ts's flags (that module needs vitest): headless, no background network. */
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const ROUNDS = 3;
const config: EvalConfig = {
  methods: (['cot', 'sc', 'reflexion', 'debate', 'ceo'] as const).map((agent) => ({
    kind: 'agent' as const,
    agent,
  })),
  taskSet: {
    kind: 'masbench',
    axes: [
      { axis: 'depth', values: [2, 6, 12] },
      { axis: 'breadth', values: [6] },
      { axis: 'robustness', values: [4] },
    ],
    n: 20,
    seed: 0,
    split: 'test',
  },
  seeds: [1],
  backend: { kind: 'simulated' },
  budget: {},
};

interface Throughput {
  timeScale: number;
  concurrency: number;
  tasks: number;
  seconds: number[];
  medianSeconds: number;
  tasksPerSecond: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
};

async function throughput(): Promise<Throughput[]> {
  const tasks = masbenchTasks(config.taskSet as Extract<EvalConfig['taskSet'], { kind: 'masbench' }>);
  const cases = [
    { timeScale: 0, concurrency: 1 },
    { timeScale: 0, concurrency: 8 },
    { timeScale: 0.02, concurrency: 1 },
    { timeScale: 0.02, concurrency: 8 },
  ];
  const times = cases.map(() => [] as number[]);
  let rows = 0;
  for (let r = 0; r < ROUNDS; r++)
    for (const [i, c] of cases.entries()) {
      const t0 = performance.now();
      const doc = await runEvaluation({
        config,
        tasks,
        executor: evalExecutor({
          backend: 'simulated',
          simTimeScale: c.timeScale,
          startedAt: () => '2026-01-01T00:00:00.000Z',
        }),
        concurrency: c.concurrency,
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      times[i]?.push((performance.now() - t0) / 1000);
      rows = doc.rows.length;
    }
  return cases.map((c, i) => {
    const s = times[i] as number[];
    return { ...c, tasks: rows, seconds: s, medianSeconds: median(s), tasksPerSecond: rows / median(s) };
  });
}

interface PageRun {
  traces: number;
  runSeconds: number;
  longestTaskMs: number;
  longTasks: number;
  /** Before Run was clicked: loading and mounting the page. */
  longestLoadMs: number;
  /** From Run to the results on screen. */
  longestRunMs: number;
  longestAfterResultsMs: number;
}

async function pageRun(url: string, n: number, axes: string): Promise<PageRun> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __long: number[] };
      w.__long = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__long.push(e.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${url}#/eval`);
    await page.getByTestId('eval-page').waitFor();
    await page.getByTestId('eval-methods').fill('cot,sc,reflexion,debate,ceo');
    await page.getByTestId('eval-axes').fill(axes);
    await page.getByTestId('eval-n').fill(String(n));
    await page.getByTestId('eval-split').selectOption('all');
    const atStart = await page.evaluate(() => (window as unknown as { __long: number[] }).__long.length);
    const t0 = Date.now();
    await page.getByTestId('eval-fresh').click();
    await page.getByTestId('eval-status').filter({ hasText: 'complete' }).waitFor({ timeout: 600_000 });
    const runSeconds = (Date.now() - t0) / 1000;
    const before = await page.evaluate(() => (window as unknown as { __long: number[] }).__long.length);
    // Interact with the results: sort the table twice, hover and click a point.
    await page.getByTestId('eval-sort-accuracy').click();
    await page.getByTestId('eval-sort-meanTokens').click();
    await page.getByTestId('eval-point-sc').locator('circle').hover();
    await page.getByTestId('eval-point-sc').locator('circle').click();
    await page.getByTestId('eval-traces').waitFor();
    await page.waitForTimeout(500);
    const long = await page.evaluate(() => (window as unknown as { __long: number[] }).__long);
    const traces = Number(((await page.getByTestId('eval-status').textContent()) ?? '').split(' ')[0]);
    return {
      traces,
      runSeconds,
      longestTaskMs: Math.max(0, ...long),
      longTasks: long.length,
      longestLoadMs: Math.max(0, ...long.slice(0, atStart)),
      longestRunMs: Math.max(0, ...long.slice(atStart, before)),
      longestAfterResultsMs: Math.max(0, ...long.slice(before)),
    };
  } finally {
    await browser.close();
  }
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

const load = loadAverage();
const tp = await throughput();
let pages: PageRun[] = [];
if (existsSync('dist/index.html')) {
  const { url, server } = await serveStatic('dist');
  try {
    const axes = 'depth:2,6,horizon:2,6,breadth:2,6,parallel:2,6,robustness:2,4';
    pages = [await pageRun(url, 10, axes), await pageRun(url, 100, axes)];
  } finally {
    server.close();
  }
} else console.error('dist/ is missing: run `npx vite build` for the page part');

const m = machine();
writeResults('eval', { machine: m, loadAverage: load, commit: commitOf(), throughput: tp, page: pages });
const base = (scale: number): Throughput =>
  tp.find((t) => t.timeScale === scale && t.concurrency === 1) as Throughput;
const tpRows = tp
  .map(
    (t) =>
      `| ${t.timeScale === 0 ? 'instant (CPU-bound)' : `${t.timeScale} × modelled latency`} | ${t.concurrency} | ${t.tasks} | ${t.medianSeconds.toFixed(2)} | ${t.tasksPerSecond.toFixed(1)} | ${(t.tasksPerSecond / base(t.timeScale).tasksPerSecond).toFixed(2)}× |`,
  )
  .join('\n');
const pageRows = pages
  .map(
    (p) =>
      `| ${p.traces.toLocaleString('en')} | ${p.runSeconds.toFixed(1)} | ${p.longestTaskMs.toFixed(0)} | ${p.longTasks} | ${p.longestLoadMs.toFixed(0)} | ${p.longestRunMs.toFixed(0)} | ${p.longestAfterResultsMs.toFixed(0)} |`,
  )
  .join('\n');
writeDocSection(
  'Evaluation',
  `\`npm run bench:eval\` (bench/eval.bench.ts; raw rows in bench/results/eval.json), commit ${commitOf()}, ${m.cores} × ${m.cpu}, Node ${m.node}, load average ${load.join(' ')} at the start (a shared machine: read the ratios, not the absolute times).

Throughput on the simulator (simulated sub-agents, not a model): 5 archive agents × MASBench depth 2, 6, 12, breadth 6, robustness 4 × 20 tasks = 500 runs through \`runEvaluation\` and \`evalExecutor\`, median of ${ROUNDS} rounds taken in turns. The baseline is the same evaluation with one job at a time.

| simulator pace | jobs at once | runs | median s | tasks/s | vs one at a time |
|---|---:|---:|---:|---:|---:|
${tpRows}

With the simulator answering at once the work is all JavaScript on one thread, so running jobs at once gains little (only the awaits between calls interleave); with latency per call, as with a provider, jobs at once overlap their waits. On the page, tasks longer than a frame remain (table below): loading the page, and at 5,000 traces the run and the use of the results. The machine was loaded (load average above 10), so these maxima vary from run to run by tens of milliseconds or more.

The Evaluate page in Chromium (dist/, headless): 5 methods × 10 MASBench cells × n tasks on the simulator in the evaluation worker, every row and trace sent to the page and written to IndexedDB, then the results drawn and used (two table sorts, a hover and a click on the scatter). Longest main-thread task seen by a \`PerformanceObserver\` for \`longtask\` (tasks over 50 ms): over everything, then split into loading the page (before *Run*), the run (until the results show) and using the results. The 500-trace run is the baseline.

| traces in the results | run s | longest task ms | long tasks | longest: loading ms | longest: run ms | longest: results ms |
|---:|---:|---:|---:|---:|---:|---:|
${pageRows}
`,
);
console.log(JSON.stringify({ throughput: tp, page: pages }, null, 2));
