/**
 * `baton eval`: methods × a task set × seeds, run headless on the simulator or a provider, with a
 * progress bar on stderr, one hard token/$ budget for everything, and a journal: every finished
 * (method, task, seed) is appended to it with its row, so running the same command again resumes
 * where it stopped and re-bills nothing finished. Writes the results document (baton.eval/1) and,
 * on request, the rows as CSV and JSONL and every trace into a folder. docs/eval.md.
 */
import { appendFile, mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseTraceJson } from '../../core/parse-trace.ts';
import type { Trace } from '../../core/trace.ts';
import { formatReport, parseDesign } from '../../design/parse.ts';
import {
  EvalConfigSchema,
  EvalRowSchema,
  isProviderOrchestrator,
  masbenchTasks,
  methodId,
  parseAxes,
  parseMethodWords,
  parseTaskJsonl,
  providerOrchestratorModel,
  rowsCsv,
  rowsJsonl,
  runEvaluation,
  tasksOfTraces,
  type AxisValues,
  type EvalConfig,
  type EvalDocument,
  type EvalProgress,
  type EvalRow,
  type EvalTask,
  type Method,
  type MethodWord,
} from '../../eval/index.ts';
import { evalExecutor } from '../../executor/eval-exec.ts';
import { Budget } from '../../executor/llm/index.ts';
import { publicBaseUrl } from '../../executor/remote.ts';
import { DEFAULT_POOL, PolicyNetwork } from '../../policy/index.ts';
import { AXES } from '../../masbench/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { computeBackend } from '../compute.ts';
import { loadCheckpoint } from '../construct-inputs.ts';
import { modelOrchestrators, type ModelOrchestrators } from '../model-orchestrator.ts';
import {
  DESIGN_OUTPUT_USAGE,
  REPAIR_TURNS_USAGE,
  DESIGN_OUTPUTS,
  providerOrchestrator,
  repairTurnsFlag,
} from '../provider-orchestrator.ts';
import type { DesignOutputChoice } from '../../executor/provider-design-read.ts';
import { choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag, type UsageError } from '../flags.ts';
import {
  PROVIDER_OPTIONS,
  intFlag,
  openProvider,
  parseProviderArgs,
  providerUsage,
  redactedJson,
  redactingIO,
  type ProviderArgs,
} from '../provider-args.ts';

const usage = `Usage: baton eval --methods <list> [--axes <axis:v,v,…>] [--n N] [--seed S] [--split test|train|all]
                  [--tasks f.jsonl | --from-traces <dir>] [--run-seed R] [--repeats K]
                  --backend simulated|openai [provider flags] [--budget-tokens N] [--budget-usd X]
                  --out results.json [--csv f.csv] [--jsonl f.jsonl] [--traces <dir>]
                  [--journal f] [--fresh] [--jobs N]

Runs every method on every task (once per seed) and writes the results (baton.eval/1): accuracy
with 95% Wilson intervals, tokens, cost, wall time, agents and calls per task, per method and per
axis value; McNemar tests between methods; the accuracy–cost Pareto front.

Options:
  --methods      comma-separated: cot, sc, debate, reflexion, ceo (each archive agent alone),
                 policy:<prior|random:S|ckpt.json>[:greedy|:sampled], design:<d.xml|d.json|trace.json>,
                 orchestrator:provider[:<model>] (the provider's model, or the one named, writes each
                 task's design; its calls count in the method's cost and the budget),
                 orchestrator:<model> (tiny: the offline tiny model, a model in models/ or a model
                 folder writes each design in this process, on the CPU; hub models: not run)
  --axes         MASBench cells, e.g. depth:2,6,robustness:3 (default: every axis at 2,6,10)
  --n            tasks per axis value (default 20)
  --seed         task seed: task i of a cell has seed taskSeed(S, i) (default 0)
  --run-seed     seed of the runs: the simulator's draws and sampled constructions (default --seed)
  --split        which task seeds to take (default test: held out from training)
  --repeats      run every task with run seeds R, R+1, …, R+repeats−1 (default 1)
  --tasks        a JSONL file of {"query", "answer", "checker"?} instead of MASBench (provider only)
  --from-traces  the tasks of the traces in a folder instead of MASBench
  --backend      simulated (generated MASBench tasks only, offline) or openai (also: provider)
${providerUsage('--backend openai')}
${REPAIR_TURNS_USAGE}
${DESIGN_OUTPUT_USAGE}
  --jobs         tasks running at once, across methods (default 4)
  --sim-time-scale  real time each simulated call takes, × its modelled latency (default 0)
  --out          the results JSON
  --csv, --jsonl the per-task rows as CSV / JSON Lines
  --traces       write every run's trace into this folder
  --journal      where finished tasks are recorded (default <out>.journal.jsonl); the same
                 command run again resumes from it
  --fresh        start over: ignore (and replace) the journal

Exit code 0 when every task finished, 3 when the budget or a cancel stopped it first (run again
to resume), 1 when it fails, 2 on a usage error.`;

const MAX_INPUT_BYTES = 64 * 1024 * 1024;
const JOURNAL_FORMAT = 'baton.eval-journal/1';
const DEFAULT_AXES: AxisValues[] = AXES.map((axis) => ({ axis, values: [2, 6, 10] }));

interface Args {
  words: MethodWord[];
  axes: AxisValues[];
  n: number;
  seed: number;
  split: 'train' | 'test' | 'all';
  repeats: number;
  runSeed: number;
  tasks: string | undefined;
  fromTraces: string | undefined;
  backend: 'simulated' | 'openai';
  provider: ProviderArgs;
  repairTurns: number;
  designOutput: DesignOutputChoice;
  jobs: number;
  simTimeScale: number;
  out: string;
  csv: string | undefined;
  jsonl: string | undefined;
  traces: string | undefined;
  journal: string;
  fresh: boolean;
}

function parse(args: string[]): { ok: true; a: Args } | UsageError {
  const f = readFlags(args, {
    methods: { type: 'string' },
    axes: { type: 'string' },
    n: { type: 'string' },
    seed: { type: 'string' },
    split: { type: 'string' },
    repeats: { type: 'string' },
    'run-seed': { type: 'string' },
    tasks: { type: 'string' },
    'from-traces': { type: 'string' },
    backend: { type: 'string' },
    jobs: { type: 'string' },
    'sim-time-scale': { type: 'string' },
    out: { type: 'string' },
    csv: { type: 'string' },
    jsonl: { type: 'string' },
    traces: { type: 'string' },
    journal: { type: 'string' },
    fresh: { type: 'boolean' },
    'repair-turns': { type: 'string' },
    'design-output': { type: 'string' },
    ...PROVIDER_OPTIONS,
  });
  if (!f.ok) return f;
  const m = parseMethodWords(f.str('methods') ?? '');
  if (!m.ok) return { ok: false, message: `--methods: ${m.message}` };
  let axes = DEFAULT_AXES;
  const axesText = f.str('axes');
  if (axesText !== undefined) {
    const a = parseAxes(axesText);
    if (!a.ok) return { ok: false, message: `--axes: ${a.message}` };
    axes = a.axes;
  }
  const n = positiveIntFlag('n', f.str('n'), '20');
  if (isUsageError(n)) return n;
  const seed = seedFlag(f.str('seed'));
  if (isUsageError(seed)) return seed;
  const split = choiceFlag('split', f.str('split'), ['test', 'train', 'all'] as const, 'test');
  if (isUsageError(split)) return split;
  const runSeed = seedFlag(f.str('run-seed'), String(seed));
  if (isUsageError(runSeed)) return runSeed;
  const repeats = intFlag(f.values.repeats, 'repeats', 1, 16, 1);
  if (typeof repeats === 'string') return { ok: false, message: repeats };
  const backendWord = choiceFlag(
    'backend',
    f.str('backend'),
    ['simulated', 'openai', 'provider'] as const,
    'simulated',
  );
  if (isUsageError(backendWord)) return backendWord;
  const backend = backendWord === 'provider' ? 'openai' : backendWord;
  const repairTurns = repairTurnsFlag(f.values['repair-turns']);
  if (typeof repairTurns === 'string') return { ok: false, message: repairTurns };
  const designOutput = choiceFlag('design-output', f.str('design-output'), DESIGN_OUTPUTS, 'xml');
  if (isUsageError(designOutput)) return designOutput;
  const provider = parseProviderArgs(f.values, backend === 'openai' ? '--backend openai' : null);
  if (!provider.ok) return provider;
  const jobs = intFlag(f.values.jobs, 'jobs', 1, 64, 4);
  if (typeof jobs === 'string') return { ok: false, message: jobs };
  const scaleText = f.str('sim-time-scale') ?? '0';
  const simTimeScale = Number(scaleText);
  if (!Number.isFinite(simTimeScale) || simTimeScale < 0 || simTimeScale > 100)
    return { ok: false, message: `--sim-time-scale must be a number from 0 to 100, got "${scaleText}"` };
  const out = f.str('out');
  if (!out) return { ok: false, message: '--out is required' };
  const tasks = f.str('tasks');
  const fromTraces = f.str('from-traces');
  if (tasks !== undefined && fromTraces !== undefined)
    return { ok: false, message: 'give --tasks or --from-traces, not both' };
  if (tasks !== undefined && backend === 'simulated')
    return {
      ok: false,
      message: '--tasks needs --backend openai: the simulator runs generated MASBench tasks only',
    };
  return {
    ok: true,
    a: {
      words: m.words,
      axes,
      n,
      seed,
      split,
      repeats,
      runSeed,
      tasks,
      fromTraces,
      backend,
      provider: provider.value,
      repairTurns,
      designOutput,
      jobs,
      simTimeScale,
      out,
      csv: f.str('csv'),
      jsonl: f.str('jsonl'),
      traces: f.str('traces'),
      journal: f.str('journal') ?? `${out}.journal.jsonl`,
      fresh: f.values.fresh === true,
    },
  };
}

async function readText(path: string): Promise<string> {
  const s = await stat(path);
  if (!s.isFile()) throw new Error(`${path} is not a file`);
  if (s.size > MAX_INPUT_BYTES) throw new Error(`${path} is larger than 64 MB`);
  return readFile(path, 'utf8');
}

/** A design method's design: from XML/JSON, or the design of a trace file. */
async function designMethod(file: string, cwd: string): Promise<Method> {
  const path = resolve(cwd, file);
  const text = await readText(path);
  const trace = text.includes('"baton.trace/1"') ? parseTraceJson(text) : null;
  if (trace?.ok) return { kind: 'design', name: file, design: trace.value.design };
  const report = parseDesign(text);
  if (!report.design) throw new Error(`${file}: ${formatReport(report).join('; ')}`);
  return { kind: 'design', name: file, design: report.design };
}

async function tracesIn(dir: string): Promise<Trace[]> {
  const out: Trace[] = [];
  for (const name of (await readdir(dir)).sort()) {
    if (!name.endsWith('.json')) continue;
    const r = parseTraceJson(await readText(join(dir, name)));
    if (r.ok) out.push(r.value);
  }
  return out;
}

interface Journal {
  rows: EvalRow[];
  ignored: number;
}

/** Rows a journal holds for this very config; a journal of another config is an error. */
async function readJournal(path: string, config: EvalConfig): Promise<Journal | string> {
  let text: string;
  try {
    text = await readText(path);
  } catch {
    return { rows: [], ignored: 0 };
  }
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const head = lines.shift();
  let header: unknown;
  try {
    header = head === undefined ? null : JSON.parse(head);
  } catch {
    header = null;
  }
  const h = header as { format?: unknown; config?: unknown } | null;
  if (h?.format !== JOURNAL_FORMAT)
    return `${path} is not an evaluation journal; remove it, or pass --fresh or another --journal`;
  // The budget may change between runs (resume with more): everything else must be the same.
  const same = (c: unknown): string => JSON.stringify({ ...(c as object), budget: null });
  if (same(h.config) !== same(config))
    return `${path} belongs to an evaluation with another configuration; pass --fresh to start over or another --journal`;
  const rows: EvalRow[] = [];
  let ignored = 0;
  for (const line of lines) {
    try {
      const p = EvalRowSchema.safeParse(JSON.parse(line));
      if (p.success) rows.push(p.data);
      else ignored += 1;
    } catch {
      // A line cut short by a crash mid-write: its task runs again.
      ignored += 1;
    }
  }
  return { rows, ignored };
}

function bar(p: EvalProgress, budgetTokens: number | undefined): string {
  const width = 30;
  const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
  const methods = Object.entries(p.perMethod)
    .map(([m, c]) => `${m} ${c.done}/${c.total}`)
    .join(' · ');
  const spend = budgetTokens !== undefined ? `${p.tokens}/${budgetTokens} tokens` : `${p.tokens} tokens`;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.done}/${p.total} tasks · ${p.running} running · ${spend}${p.usd > 0 ? ` · $${p.usd.toFixed(4)}` : ''} · ${methods}`;
}

async function run(args: string[], io0: CliIO): Promise<number> {
  const p = parseCommandArgs('eval', args, usage, parse, io0);
  if (typeof p === 'number') return p;
  const a = p.a;
  const provider = a.provider.endpoint ? openProvider(a.provider.endpoint) : null;
  const secrets = provider?.secrets ?? [];
  const io = redactingIO(io0, secrets);
  const fail = (message: string, code = 1): number => {
    io.err(`baton eval: ${message}`);
    return code;
  };
  if (provider?.note) io.err(provider.note);

  // Methods: read design files; load checkpoints.
  const methods: Method[] = [];
  let local: ModelOrchestrators | null = null;
  const nets = new Map<string, PolicyNetwork>();
  try {
    for (const w of a.words) {
      if (w.kind === 'agent') methods.push({ kind: 'agent', agent: w.agent });
      else if (w.kind === 'orchestrator') methods.push({ kind: 'orchestrator', model: w.model });
      else if (w.kind === 'design') methods.push(await designMethod(w.file, io.cwd));
      else {
        const cp = await loadCheckpoint(w.checkpoint, io.cwd, DEFAULT_POOL);
        if (typeof cp === 'string') return fail(cp, 2);
        const m: Method = { kind: 'policy', checkpoint: w.checkpoint, greedy: w.greedy };
        if (!nets.has(w.checkpoint))
          nets.set(w.checkpoint, await PolicyNetwork.create(cp, await computeBackend('cpu')));
        methods.push(m);
      }
    }
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }

  try {
    // Tasks.
    let tasks: EvalTask[];
    let taskSet: EvalConfig['taskSet'];
    if (a.tasks !== undefined) {
      const r = parseTaskJsonl(await readText(resolve(io.cwd, a.tasks)), a.tasks);
      for (const problem of r.problems.slice(0, 20)) io.err(`${a.tasks}: ${problem}`);
      if (r.problems.length > 0) return fail(`${a.tasks}: ${r.problems.length} bad line(s)`, 2);
      tasks = r.tasks;
      taskSet = { kind: 'jsonl', name: a.tasks };
    } else if (a.fromTraces !== undefined) {
      tasks = tasksOfTraces(await tracesIn(resolve(io.cwd, a.fromTraces)));
      taskSet = { kind: 'traces', name: a.fromTraces };
      if (a.backend === 'simulated') {
        const before = tasks.length;
        tasks = tasks.filter((t) => t.masbench !== null);
        if (tasks.length < before)
          io.err(
            `note: ${before - tasks.length} task(s) are not generated MASBench tasks; the simulator skips them`,
          );
      }
    } else {
      taskSet = { kind: 'masbench', axes: a.axes, n: a.n, seed: a.seed, split: a.split };
      tasks = masbenchTasks(taskSet);
    }
    if (tasks.length === 0) return fail('the task set is empty', 2);

    const budget = a.provider.budget;
    const config = EvalConfigSchema.parse({
      methods,
      taskSet,
      seeds: Array.from({ length: a.repeats }, (_, i) => a.runSeed + i),
      backend: provider
        ? {
            kind: 'remote',
            provider: provider.spec.provider,
            baseUrl: publicBaseUrl(provider.spec.baseUrl),
            model: provider.spec.model,
          }
        : { kind: 'simulated' },
      budget: {
        ...(budget.totalTokens !== undefined ? { tokens: budget.totalTokens } : {}),
        ...(budget.totalUsd !== undefined ? { usd: budget.totalUsd } : {}),
      },
    });

    const outPath = resolve(io.cwd, a.out);
    const journalPath = resolve(io.cwd, a.journal);
    let done: EvalRow[] = [];
    const journal = a.fresh ? { rows: [], ignored: 0 } : await readJournal(journalPath, config);
    if (typeof journal === 'string') return fail(journal, 2);
    done = journal.rows;
    if (done.length > 0)
      io.err(`resuming: ${done.length} finished task(s) in ${a.journal} are not run again`);
    if (journal.ignored > 0)
      io.err(`note: ${journal.ignored} damaged journal line(s) ignored; those tasks run again`);
    await mkdir(dirname(journalPath), { recursive: true });
    if (a.fresh || done.length === 0)
      await writeFile(journalPath, JSON.stringify({ format: JOURNAL_FORMAT, config }) + '\n');
    const tracesDir = a.traces !== undefined ? resolve(io.cwd, a.traces) : null;
    if (tracesDir) await mkdir(tracesDir, { recursive: true });

    // One budget for the designs the provider writes and the runs (the orchestrator's calls count).
    const shared = new Budget({
      ...(config.budget.tokens !== undefined ? { maxTokens: config.budget.tokens } : {}),
      ...(config.budget.usd !== undefined ? { maxUsd: config.budget.usd } : {}),
    });
    const designer =
      provider && a.provider.endpoint
        ? providerOrchestrator({
            baseUrl: a.provider.endpoint.baseUrl,
            apiKey: provider.key,
            model: a.provider.endpoint.model,
            budget: shared,
            repairTurns: a.repairTurns,
            output: a.designOutput,
          })
        : null;
    // `orchestrator:<model>`: the model writes the designs in this process (model-orchestrator.ts).
    local = modelOrchestrators(io.cwd);
    const executor = evalExecutor({
      sharedBudget: shared,
      backend: provider ? provider.backend : 'simulated',
      budget: config.budget,
      agentConcurrency: a.provider.concurrency,
      secrets,
      simTimeScale: a.simTimeScale,
    });
    const createdAt = (io0.now?.() ?? new Date()).toISOString();
    const tty =
      process.stderr.isTTY === true && io0.err === undefined ? false : process.stderr.isTTY === true;
    let lastShown = -1;
    const onProgress = (pr: EvalProgress): void => {
      const line = bar(pr, config.budget.tokens);
      if (tty) process.stderr.write(`\r${line}\u001b[K`);
      else {
        // Without a terminal, a line every 10% (and the last one).
        const step = Math.floor((pr.done / Math.max(1, pr.total)) * 10);
        if (step !== lastShown) {
          lastShown = step;
          io.err(line);
        }
      }
    };
    const ac = new AbortController();
    const onSigint = (): void => ac.abort();
    process.once('SIGINT', onSigint);
    let doc: EvalDocument;
    try {
      doc = await runEvaluation({
        config,
        tasks,
        executor: { run: (trace, job, signal) => executor.run(trace, job, signal), left: executor.left },
        policyFor: (m) => {
          const net = nets.get(m.checkpoint);
          if (!net) throw new Error(`no network for ${methodId(m)}`);
          return { net, pool: DEFAULT_POOL };
        },
        orchestratorFor: (m) =>
          !isProviderOrchestrator(m)
            ? local?.orchestratorFor(m)
            : designer
              ? (task, seed, signal) => {
                  const model = providerOrchestratorModel(m);
                  return designer.design(task, {
                    ...(model !== null ? { model } : {}),
                    seed,
                    ...(signal ? { signal } : {}),
                  });
                }
              : null,
        done,
        concurrency: a.jobs,
        createdAt,
        signal: ac.signal,
        onProgress,
        onRow: async (row, trace) => {
          if (tracesDir) await writeFile(join(tracesDir, `${trace.id}.json`), redactedJson(trace, secrets));
          await appendFile(journalPath, JSON.stringify(row) + '\n');
        },
      });
    } finally {
      process.removeListener('SIGINT', onSigint);
      if (tty) process.stderr.write('\n');
    }

    await mkdir(dirname(outPath), { recursive: true });
    await writeFile(outPath, redactedJson(doc, secrets));
    if (a.csv) await writeFile(resolve(io.cwd, a.csv), rowsCsv(doc));
    if (a.jsonl) await writeFile(resolve(io.cwd, a.jsonl), rowsJsonl(doc));
    for (const m of doc.summary.methods) {
      if (!m.available) {
        io.out(`${m.method}: not run (${m.unavailable ?? 'unavailable'})`);
        continue;
      }
      const s = m.overall;
      io.out(
        `${m.method}: accuracy ${s.accuracy.toFixed(3)} [${s.ci95[0].toFixed(2)}, ${s.ci95[1].toFixed(2)}] (${s.correct}/${s.n}) · ${Math.round(s.meanTokens)} tokens/task · $${s.totalCostUsd.toFixed(4)} · ${s.callsPerTask.toFixed(1)} calls/task`,
      );
    }
    io.out(`Pareto front (accuracy vs ${doc.summary.costMetric}): ${doc.summary.pareto.join(', ')}`);
    io.out(
      `wrote ${a.out}: ${doc.rows.length}/${doc.planned} tasks, ${doc.spend.tokens} tokens, $${doc.spend.usd.toFixed(4)}`,
    );
    if (!doc.complete) {
      io.err(
        `stopped before the end (${doc.stopped ?? 'unknown reason'}); run the same command again to resume.`,
      );
      return 3;
    }
    return 0;
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  } finally {
    for (const net of nets.values()) net.dispose();
    await local?.dispose();
  }
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'evaluate methods on a task set: accuracy with CIs, cost, per axis, Pareto front',
  usage,
  run,
};
