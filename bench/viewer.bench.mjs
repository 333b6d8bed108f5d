/**
 * `npm run bench:viewer`: how fast a big trace opens in the Trace page. Generates layered-DAG traces
 * (100 and 1,000 agents, with events), builds the benchmark page (bench/viewer-page: the real
 * TracePage plus timing hooks), and in headless Chromium measures, per run in a fresh page, the
 * time from "open this trace text" (parse + validate + render) to "interactive": agent nodes in
 * the DOM and a click on one showing it in the inspector; on the way, when the final layout is shown
 * (the first agent node drawn: nothing is drawn before it, and nothing moves after) and how long the
 * placeholder stood while the layout worker computed it. Baselines in the same run: the 100-agent
 * trace, and the 1,000-agent trace with the same layout computed on the main thread instead.
 * When the app build (dist/) exists it also times the real app: file input → inspector. The
 * scenarios take turns run by run, so a burst of load hits them alike.
 * Writes bench/results/viewer.json and the "## Viewer" section of docs/benchmarks.md.
 * Options: --runs N (default 5), --quick (3 runs, no app row), --strict (exit 1 when the 1,000-agent
 * run misses the budget).
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { chromium } from 'playwright-core';
import { build } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pageRoot = join(root, 'bench/viewer-page');
// Built outside the source tree so lint, format and git never see it.
const pageDist = join(root, 'node_modules/.cache/baton-viewer-bench');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const strict = args.includes('--strict');
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Math.max(1, Number(args[runsArg + 1]) || 5) : quick ? 3 : 5;
const WARMUP = 1;
const BUDGET_MS = 1000;

// Same flags as tests/e2e/browser.ts.
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

// ------------------------------------------------------------------ trace generator

/** mulberry32, so every run benchmarks the same traces. */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPES = ['CoTAgent', 'SCAgent', 'DebateAgent', 'ReflexionAgent', 'WebSearchAgent', 'ExtractAgent'];
const PROSE =
  'We compute the intermediate quantity from the relations given, check it against the earlier result, ' +
  'and carry the value forward. Substituting, $x = 3y + 2$ and $y = 7$, so $x = 23$. ';

/**
 * A valid layered design: ~sqrt(n) layers, every agent linked from 1–2 agents of the previous layer
 * and feeding at least one of the next, one summariser as the sink. Events follow the schedule an
 * unbounded-parallel executor would produce: start, 1–3 LLM calls, end.
 */
function layeredTrace(n, seed = 1) {
  const r = rng(seed);
  const layers = Math.max(3, Math.round(Math.sqrt(n) / 1.2));
  const per = Math.ceil((n - 1) / (layers - 1));
  const ids = [];
  for (let i = 0; i < n - 1; i++) ids.push({ id: `a${i}`, layer: Math.floor(i / per) });
  const lastLayer = ids[ids.length - 1].layer;
  const byLayer = [];
  for (const a of ids) (byLayer[a.layer] ??= []).push(a.id);
  const parents = new Map(ids.map((a) => [a.id, new Set()]));
  for (let l = 1; l <= lastLayer; l++) {
    const prev = byLayer[l - 1];
    for (const id of byLayer[l]) {
      const k = 1 + Math.floor(r() * 2);
      for (let j = 0; j < k; j++) parents.get(id).add(prev[Math.floor(r() * prev.length)]);
    }
    const fed = new Set(byLayer[l].flatMap((id) => [...parents.get(id)]));
    for (const p of prev)
      if (!fed.has(p)) parents.get(byLayer[l][Math.floor(r() * byLayer[l].length)]).add(p);
  }
  const sink = 'final';
  parents.set(sink, new Set(byLayer[lastLayer]));
  const order = [...ids.map((a) => a.id), sink];
  const agents = order.map((id, i) => {
    const ps = [...parents.get(id)];
    const type = id === sink ? 'SummarizerAgent' : TYPES[i % TYPES.length];
    return {
      id,
      type,
      description: id === sink ? 'Combines the last layer into the final answer.' : `Works on sub-task ${i}.`,
      input: ps.map((p) => `Result of ${p}: \${${p}}`).join('\n'),
      params: type === 'DebateAgent' ? { debateRoles: ['Proponent', 'Skeptic'] } : {},
    };
  });
  const edges = order.flatMap((id) => [...parents.get(id)].map((from) => ({ from, to: id })));

  const ends = new Map();
  const events = [];
  let promptTokens = 0;
  let completionTokens = 0;
  let costUsd = 0;
  let llmCalls = 0;
  for (const id of order) {
    const start = Math.max(0, ...[...parents.get(id)].map((p) => ends.get(p))) + 2;
    events.push({ type: 'agent.start', t: start, agentId: id, input: `Inputs for ${id}.` });
    let t = start + 1;
    const calls = 1 + Math.floor(r() * 3);
    for (let c = 0; c < calls; c++) {
      const latencyMs = 200 + Math.floor(r() * 1300);
      const p = 300 + Math.floor(r() * 500);
      const o = 80 + Math.floor(r() * 200);
      const cost = Math.round(((p * 0.15 + o * 0.6) / 1e6) * 1e9) / 1e9;
      events.push({
        type: 'llm.call',
        t,
        agentId: id,
        callId: `${id}#${c + 1}`,
        label: `call ${c + 1}/${calls}`,
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: 'You are a careful problem solver. Put the final answer in \\boxed{}.' },
          { role: 'user', content: `Sub-task of ${id}. ${PROSE}` },
        ],
        output: `${PROSE}So the answer is \\boxed{${Math.floor(r() * 100)}}.`,
        promptTokens: p,
        completionTokens: o,
        latencyMs,
        costUsd: cost,
      });
      promptTokens += p;
      completionTokens += o;
      costUsd += cost;
      llmCalls += 1;
      t += latencyMs + 1;
    }
    events.push({ type: 'agent.end', t, agentId: id, output: `Answer of ${id}: \\boxed{42}` });
    ends.set(id, t);
  }
  const last = Math.max(...events.map((e) => e.t));
  events.sort((a, b) => a.t - b.t);
  events.push({ type: 'run.end', t: last + 1, status: 'completed' });
  return {
    format: 'baton.trace/1',
    id: `bench-layered-${n}`,
    title: `Benchmark: ${n}-agent layered DAG`,
    createdAt: '2026-01-01T00:00:00.000Z',
    task: { query: `A generated ${n}-agent task.`, groundTruth: '42', source: { kind: 'custom' } },
    designer: { kind: 'manual' },
    construction: [],
    design: { dom: 'high', agents, edges },
    execution: { backend: { kind: 'simulated', seed }, status: 'completed', events },
    result: { finalAnswer: '42', answerAgent: sink, correct: true },
    totals: {
      promptTokens,
      completionTokens,
      costUsd: Math.round(costUsd * 1e9) / 1e9,
      llmCalls,
      wallMs: last + 1,
      criticalPathMs: last,
    },
    tags: ['benchmark'],
  };
}

// ------------------------------------------------------------------ static server

const TYPES_BY_EXT = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

function serve(dir) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    let file = normalize(join(base, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!file.startsWith(base)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES_BY_EXT[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${server.address().port}/` })),
  );
}

// ------------------------------------------------------------------ measurement

/**
 * The CPU counters of /proc/stat (Linux): total and stolen jiffies. On a virtual machine "steal" is
 * time the host gave the cores to someone else, which slows every number here without showing in
 * the load average. Null elsewhere.
 */
function cpuCounters() {
  try {
    const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

const stealPercent = (a, b) =>
  a && b && b.total > a.total ? Math.round(((b.steal - a.steal) / (b.total - a.total)) * 1000) / 10 : null;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const round = (x) => (x === null || x === undefined ? null : Math.round(x * 10) / 10);

/**
 * CPU time the page's main thread spent between the `bench-open` and `bench-interactive` marks:
 * the sum of top-level task thread durations. Unlike wall time it does not grow when other
 * processes compete for the cores, so it shows what the page itself costs.
 */
// The top-level task event is named differently across Chromium versions.
const TOP_LEVEL_TASKS = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

function mainThreadCpuMs(events) {
  const open = events.find((e) => e.name === 'bench-open');
  const done = events.find((e) => e.name === 'bench-interactive');
  if (!open || !done) return null;
  let us = 0;
  for (const e of events) {
    if (e.pid !== open.pid || e.tid !== open.tid || e.ph !== 'X' || !TOP_LEVEL_TASKS.has(e.name)) continue;
    if (e.ts + (e.dur ?? 0) < open.ts || e.ts > done.ts) continue;
    us += e.tdur ?? 0;
  }
  return us / 1000;
}

/** Id of an agent node whose centre is in view and not covered (the one a user could click). */
function visibleNodeId() {
  for (const el of document.querySelectorAll('.react-flow__node')) {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    if (hit && el.contains(hit)) return el.getAttribute('data-id');
  }
  return null;
}

/**
 * Clicks an agent node the way a user would: one that is in view. Should the node move or leave the
 * view while clicking (it should not: a graph is drawn once, on its final layout), tries again with
 * a node that is in view then; the time spent counts.
 */
async function clickSomeNode(page) {
  for (let attempt = 0; attempt < 10; attempt++) {
    const id = await page.evaluate(visibleNodeId);
    if (!id) continue;
    try {
      await page.click(`.react-flow__node[data-id="${id}"]`, { timeout: 3000 });
      return id;
    } catch {
      // Moved or scrolled out of view while clicking: pick again.
    }
  }
  throw new Error('no agent node could be clicked');
}

/** One run on the benchmark page: open → nodes → click → inspector shows the clicked agent. */
async function pageRun(browser, url, trace, mode) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${url}?mode=${mode}`);
  await page.waitForFunction(() => window.__viewerBench?.ready === true);
  const chars = await page.evaluate((u) => window.__viewerBench.load(u), `traces/${trace}.json`);
  await browser.startTracing(page, { categories: ['toplevel', 'devtools.timeline', 'blink.user_timing'] });
  const t0 = await page.evaluate(() => {
    performance.mark('bench-open');
    return window.__viewerBench.open();
  });
  await page.waitForSelector('[data-testid="agent-node"]', { timeout: 60_000 });
  const id = await clickSomeNode(page);
  const t1 = await (
    await page.waitForFunction(
      (agent) => {
        if (
          !document.querySelector(
            `[data-testid="inspector"][data-agent-id="${agent}"] [data-testid="llm-call"]`,
          )
        ) {
          return false;
        }
        performance.mark('bench-interactive');
        return performance.now();
      },
      id,
      { polling: 'raf', timeout: 60_000 },
    )
  ).jsonValue();
  const cpu = mainThreadCpuMs(JSON.parse((await browser.stopTracing()).toString()).traceEvents);
  const m = await page.evaluate(() => window.__viewerBench.marks);
  const rendered = await page.locator('[data-testid="agent-node"]').count();
  await context.close();
  if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
  const longest = m.longTasks.reduce((a, [, d]) => Math.max(a, d), 0);
  return {
    chars,
    interactive_ms: t1 - t0,
    main_cpu_ms: cpu,
    parse_ms: m.parsed - m.open,
    // The first agent node drawn is the graph on its final layout.
    layout_shown_ms: m.nodes === null ? null : m.nodes - m.open,
    // The placeholder is on screen from the first frame painted while the layout is pending until
    // the graph is drawn (null: never painted, the layout was there before the first frame) …
    placeholder_ms: m.placeholderFrame === null || m.nodes === null ? null : m.nodes - m.placeholderFrame,
    // … and the layout worker's part: request → answer in the store (the baseline has no worker).
    layout_wait_ms:
      mode === 'main' || m.layoutRequested === null || m.layoutReady === null
        ? null
        : m.layoutReady - m.layoutRequested,
    longest_task_ms: longest,
    rendered_nodes: rendered,
  };
}

/** One run in the real app: choose the file in the gallery's file input → inspector. */
async function appRun(browser, url, file) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(url);
    const input = page.locator('[data-testid="file-input"]');
    await input.waitFor({ state: 'attached', timeout: 30_000 });
    const t0 = Date.now();
    await input.setInputFiles(file);
    await page.waitForSelector('[data-testid="agent-node"]', { timeout: 60_000 });
    const id = await clickSomeNode(page);
    await page.waitForSelector(`[data-testid="inspector"][data-agent-id="${id}"] [data-testid="llm-call"]`, {
      timeout: 60_000,
    });
    const ms = Date.now() - t0;
    if (errors.length > 0) throw new Error(`page errors: ${errors.join('; ')}`);
    return { interactive_ms: ms };
  } finally {
    await context.close();
  }
}

function summarise(name, agents, note, runs) {
  const pick = (k) => runs.map((r) => r[k]).filter((v) => v !== null && v !== undefined);
  const stat = (k) => (pick(k).length > 0 ? round(median(pick(k))) : null);
  return {
    scenario: name,
    agents,
    note,
    runs: runs.length,
    interactive_median_ms: stat('interactive_ms'),
    interactive_max_ms: round(Math.max(...pick('interactive_ms'))),
    main_cpu_median_ms: stat('main_cpu_ms'),
    parse_median_ms: stat('parse_ms'),
    layout_shown_median_ms: stat('layout_shown_ms'),
    placeholder_median_ms: stat('placeholder_ms'),
    placeholder_max_ms: pick('placeholder_ms').length > 0 ? round(Math.max(...pick('placeholder_ms'))) : null,
    layout_wait_median_ms: stat('layout_wait_ms'),
    longest_task_median_ms: stat('longest_task_ms'),
    rendered_nodes: runs[0]?.rendered_nodes ?? null,
    chars: runs[0]?.chars ?? null,
    raw: runs.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, round(v)]))),
  };
}

async function main() {
  console.log('building the benchmark page…');
  await build({
    root: pageRoot,
    base: './',
    logLevel: 'warn',
    configFile: false,
    plugins: [react()],
    worker: { format: 'es' },
    build: { outDir: pageDist, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 4000 },
  });
  mkdirSync(join(pageDist, 'traces'), { recursive: true });
  const sizes = [100, 1000];
  const files = {};
  for (const n of sizes) {
    const name = `layered-${n}`;
    files[n] = join(pageDist, 'traces', `${name}.json`);
    writeFileSync(files[n], JSON.stringify(layeredTrace(n, n)));
  }

  const loadBefore = loadavg()[0];
  const cpuBefore = cpuCounters();
  const { server, url } = await serve(pageDist);
  const app = !quick && existsSync(join(root, 'dist/index.html')) ? await serve(join(root, 'dist')) : null;
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
  });
  const scenarios = [
    {
      name: 'worker',
      n: 100,
      mode: 'worker',
      note: 'baseline size, same path as 1,000 (above 40 agents the layout is computed in the worker)',
    },
    {
      name: 'worker',
      n: 1000,
      mode: 'worker',
      note: 'a placeholder until the layout worker answers, then the graph on its final layout',
    },
    {
      name: 'main-thread',
      n: 1000,
      mode: 'main',
      note: 'baseline: the same layout computed on the main thread before first paint (the behaviour before the worker computed it)',
    },
  ];
  // The scenarios take turns, run by run, so a stretch of load on this shared machine (or of
  // CPU stolen by the host) slows all of them alike instead of one row.
  const appAttempt = async () =>
    // dist/ belongs to the app build and may be rebuilt while this runs; a failed run is retried
    // once and, failing again, left out (the page rows are the measurement).
    appRun(browser, app.url, files[1000]).catch(() =>
      appRun(browser, app.url, files[1000]).catch((e) => {
        console.warn(`app run failed: ${String(e).split('\n')[0]}`);
        return null;
      }),
    );
  const plan = [
    ...scenarios.map((s) => ({
      name: `page/${s.name}`,
      n: s.n,
      note: s.note,
      run: () => pageRun(browser, url, `layered-${s.n}`, s.mode),
    })),
    ...(app
      ? [
          {
            name: 'app/file-input',
            n: 1000,
            note: 'the built app: file input → import → trace route → inspector',
            run: appAttempt,
          },
        ]
      : []),
  ];
  const runs = plan.map(() => []);
  const results = [];
  try {
    for (let i = 0; i < WARMUP + RUNS; i++) {
      for (const [k, p] of plan.entries()) {
        const r = await p.run();
        if (i >= WARMUP && r) runs[k].push(r);
      }
    }
    for (const [k, p] of plan.entries()) {
      if (runs[k].length === 0) continue;
      const row = summarise(p.name, p.n, p.note, runs[k]);
      console.log(JSON.stringify({ ...row, raw: undefined }));
      results.push(row);
    }
  } finally {
    await browser.close();
    server.close();
    app?.server.close();
  }

  const out = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', node: process.version },
    // Other work on the machine inflates every number; the 1-minute load average says how much.
    load_average: { before: round(loadBefore), after: round(loadavg()[0]) },
    // Share of CPU time the hypervisor stole during the run, %.
    cpu_steal_percent: stealPercent(cpuBefore, cpuCounters()),
    chromium: browser.version(),
    budget_ms: BUDGET_MS,
    runs_per_scenario: RUNS,
    results,
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  writeFileSync(join(root, 'bench/results/viewer.json'), `${JSON.stringify(out, null, 2)}\n`);
  writeDocs(out);
  const big = results.find((r) => r.scenario === 'page/worker' && r.agents === 1000);
  const verdict = big && big.interactive_max_ms < BUDGET_MS ? 'within' : 'OVER';
  console.log(
    `1,000 agents: median ${big?.interactive_median_ms} ms, max ${big?.interactive_max_ms} ms — ${verdict} the ${BUDGET_MS} ms budget; ` +
      `final layout shown after ${big?.layout_shown_median_ms} ms, placeholder ${big?.placeholder_median_ms} ms (max ${big?.placeholder_max_ms} ms)`,
  );
  // Wall time on a shared machine swings with other load, so only --strict turns a miss into a failure.
  if (verdict !== 'within' && strict) process.exitCode = 1;
}

/** The 1,000-agent result against the budget: wall time, the placeholder, CPU and long tasks. */
function verdictLine(out) {
  const big = out.results.find((r) => r.scenario === 'page/worker' && r.agents === 1000);
  const base = out.results.find((r) => r.scenario === 'page/main-thread');
  const app = out.results.find((r) => r.scenario === 'app/file-input');
  if (!big) return '';
  const within = big.interactive_max_ms < out.budget_ms;
  const ms = (v) => (v === null || v === undefined ? '–' : `${v} ms`);
  return (
    `**Result:** 1,000 agents are interactive after ${big.interactive_median_ms} ms (median; max ` +
    `${big.interactive_max_ms} ms), ${within ? 'within' : 'over'} the ${out.budget_ms} ms budget in wall time on ` +
    `this machine at this load. The graph is shown, on its final layout, ${ms(big.layout_shown_median_ms)} after ` +
    `open; the placeholder was on screen for ${ms(big.placeholder_median_ms)} of that (max ` +
    `${ms(big.placeholder_max_ms)}), and the layout worker answered ${ms(big.layout_wait_median_ms)} after the ` +
    `request. The page's own main-thread CPU to interactive is ${ms(big.main_cpu_median_ms)}` +
    (base
      ? ` (${ms(base.main_cpu_median_ms)} with the layout on the main thread, where the graph is shown after ` +
        `${ms(base.layout_shown_median_ms)} and interactive after ${ms(base.interactive_median_ms)}), and its longest main-thread task ${ms(big.longest_task_median_ms)} ` +
        `(${ms(base.longest_task_median_ms)}).`
      : '.') +
    (app
      ? ` The built app, which adds import, storage and routing, was interactive after ` +
        `${ms(app.interactive_median_ms)} (median; max ${ms(app.interactive_max_ms)}).`
      : '')
  );
}

function writeDocs(out) {
  const path = join(root, 'docs/benchmarks.md');
  const fmt = (v) => (v === null || v === undefined ? '–' : String(v));
  const lines = [
    '## Viewer',
    '',
    'Measured with `npm run bench:viewer` (bench/viewer.bench.mjs) in headless Chromium ' +
      `${out.chromium} on ${out.machine.cpus} × ${out.machine.cpu} (1-minute load average ${out.load_average.before} → ` +
      `${out.load_average.after} during the run` +
      (out.cpu_steal_percent === null ? '' : `, ${out.cpu_steal_percent} % of CPU time stolen by the host`) +
      '); raw rows in `bench/results/viewer.json`.',
    'Each run opens a fresh page of the benchmark build (bench/viewer-page: the real `TracePage`), hands it',
    'the trace text, and times parse + validation + render until agent nodes are in the DOM and a click on',
    'one shows it in the inspector ("interactive"). Traces are generated layered DAGs (≈√n layers, 1–2',
    'links per agent, 1–3 LLM calls each, a summariser sink). Medians of ' +
      `${out.runs_per_scenario} runs after one warm-up, the scenarios taking turns run by run; goal: interactive in under ${out.budget_ms} ms at 1,000 agents.`,
    '"Main-thread CPU" is the CPU time of the page\'s main thread in that window (top-level task thread',
    'time from a Chrome trace): it grows far less than wall time when other processes compete for the',
    'cores (CPU stolen by the host still inflates it), so it is closer to what the page itself costs.',
    '',
    '"Final layout shown" is the first agent node in the DOM: a graph is drawn once, on its final layout,',
    'and nothing moves afterwards. Before that, graphs above 40 agents show a placeholder while the layout',
    'worker computes the layout: "placeholder on screen" runs from the first frame painted with it to the',
    'first node drawn ("–": never painted), "worker answer" from the request to the layout in the store',
    '(worker start on a fresh page, request validation, layout, reply validation).',
    '',
    '| scenario | agents | interactive (median / max) ms | main-thread CPU to interactive ms | parse ms | final layout shown ms | placeholder on screen (median / max) ms | worker answer ms | longest main-thread task ms | nodes in DOM |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...out.results.map(
      (r) =>
        `| ${r.scenario} | ${r.agents} | ${fmt(r.interactive_median_ms)} / ${fmt(r.interactive_max_ms)} | ${fmt(r.main_cpu_median_ms)} | ${fmt(r.parse_median_ms)} | ${fmt(r.layout_shown_median_ms)} | ${fmt(r.placeholder_median_ms)} / ${fmt(r.placeholder_max_ms)} | ${fmt(r.layout_wait_median_ms)} | ${fmt(r.longest_task_median_ms)} | ${fmt(r.rendered_nodes)} |`,
    ),
    '',
    verdictLine(out),
    '',
    ...out.results.map((r) => `- **${r.scenario}, ${r.agents} agents**: ${r.note}.`),
    '',
    "Why it is fast: the layout is dagre's own on a shared layering, computed without dagre",
    '(`layoutLayered`, docs/viewer.md, "Layout": ≈10 ms at 1,000 agents once warm, ≈50–90 ms on a fresh',
    'page); above 40 agents the layout worker computes it, so it never blocks the main thread, and the',
    'graph appears once, in its final place. React Flow renders only the nodes in view',
    '(`onlyRenderVisibleElements`), node objects are reused between replay steps, and the timeline renders',
    'only the rows in view. The main-thread row is the same page with the layout computed on the main',
    'thread: the difference is what the worker costs in wall time (its start on a fresh page, two',
    'messages) and saves in main-thread blocking (the longest task).',
    '',
  ];
  const section = `${lines.join('\n')}\n`;
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf('\n## Viewer');
  if (start >= 0) {
    const next = doc.indexOf('\n## ', start + 1);
    doc = doc.slice(0, start + 1) + section + (next >= 0 ? doc.slice(next + 1) : '');
  } else {
    doc = `${doc.trimEnd()}\n\n${section}`;
  }
  writeFileSync(path, doc);
}

await main();
