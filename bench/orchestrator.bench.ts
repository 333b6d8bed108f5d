/**
 * The orchestrator end to end in Node (transformers.js on onnxruntime-node, CPU), through the same
 * runtime the app's worker and `baton orchestrate` use (`createOrchestratorRuntime`):
 *
 * 1. **Validity**: held-out MASBench queries (test-split seeds, all five axes, both Degrees of MAS),
 *    each decoded greedily twice, constrained and unconstrained; the share of outputs that parse,
 *    expand and validate, with 95% Wilson intervals, and the most common problems of the invalid
 *    ones.
 * 2. **Speed**, as ratios within the run: decoding tokens/s of constrained generation against plain
 *    `generate` (no logits processor) on the same model, prompts and greedy settings; the two runs
 *    of a query alternate which goes first, so load on the shared machine falls on both. Tokens/s is
 *    per decoded token after the first (the prompt's forward pass is the first-token latency), so
 *    outputs of different lengths compare per token; where both modes wrote the same text (the
 *    constraint never changed the greedy choice) the ratio over exactly those outputs is reported
 *    too. Also: the constraint's own mask time per token, first-token latency, load and warm-up
 *    time, for each dtype the model folder offers.
 *
 * The default model is the project's offline model (`models/baton-orchestrator-tiny/`). When that
 * folder is absent the bench writes a random-weight fixture in the tiny format
 * (tests/server/model-fixture.ts) and says so in every result: its numbers are the loading and
 * decoding path's, not the model's.
 *
 *   npm run bench:orchestrator [-- --model <manifest id|folder>] [--n 200] [--speed-n <n>]
 *     [--seed 1] [--out bench/results/orchestrator.json]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { wilson } from '../src/core/stats.ts';
import { fromDesign, validateDesign } from '../src/design/validate.ts';
import { AXES, type MasBenchTask } from '../src/masbench/index.ts';
import {
  createOrchestratorRuntime,
  designConstraint,
  drawTeacherTasks,
  parseManifest,
  type Designed,
  type Dtype,
  type Loaded,
  type Manifest,
  type OrchestratorRuntime,
  type RuntimeDeps,
} from '../src/orchestrator/index.ts';
import { writeModelFolder } from '../tests/server/model-fixture.ts';
import { machine, writeDocSection } from './report.ts';

const ROOT = join(import.meta.dirname, '..');
const DEFAULT_MODEL = 'baton-orchestrator-tiny';
const DEFAULT_OUT = join(ROOT, 'bench/results/orchestrator.json');
const HEADING = 'Orchestrator: validity and speed';
/** Task values when the model folder has no training report (the training script's default). */
const DEFAULT_VALUES = [2, 3, 4, 5, 6];

// ------------------------------------------------------------------ the runtime, Node wiring

function readManifest(): Manifest | null {
  const path = join(ROOT, 'models/manifest.json');
  if (!existsSync(path)) return null;
  const parsed = parseManifest(readFileSync(path, 'utf8'));
  if (!parsed.ok) throw new Error(`models/manifest.json: ${parsed.errors[0]?.message ?? 'invalid'}`);
  return parsed.value;
}

const isModelFolder = (dir: string): boolean => existsSync(join(dir, 'config.json'));

/**
 * The project's constrained decoding (`designConstraint`, the runtime's default) with the whole
 * processor call timed as well (accepting the previous token and masking: `processorMs`), so a
 * constrained token's time splits into the model's, the mask's and the rest of the processor's.
 */
const timedConstraint: NonNullable<RuntimeDeps['constraint']> = async (ctx) => {
  const c = await designConstraint(ctx);
  let processorMs = 0;
  for (const p of c.processors as { _call: (...a: unknown[]) => unknown }[]) {
    const call = p._call.bind(p);
    p._call = (...a: unknown[]) => {
      const t = performance.now();
      try {
        return call(...a);
      } finally {
        processorMs += performance.now() - t;
      }
    };
  }
  return { processors: c.processors, stats: () => ({ ...c.stats(), processorMs }) };
};

/**
 * The runtime with the deps `baton orchestrate` gives it (src/cli/commands/orchestrate.ts: the
 * manifest, local folders under models/ or given by path, the CPU; the chat format is left out, as
 * this bench runs the project's tiny models), plus the timed constraint above.
 */
function nodeRuntime(manifest: Manifest | null): OrchestratorRuntime {
  return createOrchestratorRuntime({
    manifest,
    resolve: { localRoot: join(ROOT, 'models/'), isFolder: (s) => isModelFolder(resolve(s)) },
    probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
    cacheDir: null,
    formats: {},
    constraint: timedConstraint,
  });
}

interface ModelChoice {
  /** What `runtime.load` is given. */
  spec: string;
  folder: string;
  /** 'model' for a real model folder, 'fixture' for the random-weight stand-in. */
  kind: 'model' | 'fixture';
  label: string;
}

/** The model's folder: a manifest entry's under models/, a folder given by path, or the fixture. */
async function chooseModel(spec: string, manifest: Manifest | null): Promise<ModelChoice> {
  const entry = manifest?.models.find((m) => m.id === spec);
  if (entry && entry.source.kind === 'local') {
    const folder = join(ROOT, 'models', entry.source.folder);
    if (isModelFolder(folder)) return { spec, folder, kind: 'model', label: entry.label };
    if (spec !== DEFAULT_MODEL) throw new Error(`${folder} has no config.json`);
  } else if (entry) {
    throw new Error(`${spec} is a hub model; this bench runs local folders`);
  } else if (isModelFolder(resolve(spec))) {
    return { spec: resolve(spec), folder: resolve(spec), kind: 'model', label: spec };
  } else if (spec !== DEFAULT_MODEL) {
    throw new Error(`${spec} is neither a manifest id nor a model folder`);
  }
  const folder = await writeModelFolder({ dtypes: ['fp32', 'q8', 'q4'], config: { nPositions: 512 } });
  return {
    spec: folder,
    folder,
    kind: 'fixture',
    label: 'FIXTURE: random weights (tests/server/model-fixture.ts), not the trained model',
  };
}

const DTYPE_FILES: [Dtype, string][] = [
  ['fp32', 'onnx/model.onnx'],
  ['q8', 'onnx/model_quantized.onnx'],
  ['q4', 'onnx/model_q4.onnx'],
];

const dtypesIn = (folder: string): Dtype[] =>
  DTYPE_FILES.filter(([, f]) => existsSync(join(folder, f))).map(([d]) => d);

// ------------------------------------------------------------------ queries

interface Query {
  task: MasBenchTask;
  dom: 'low' | 'high';
}

/**
 * `n` held-out queries: test-split tasks cycling through the axes, the DoM alternating per round of
 * axes, so every (axis, DoM) cell gets n/10.
 */
function queries(n: number, seed: number, values: readonly number[]): Query[] {
  const tasks = drawTeacherTasks({ count: n, baseSeed: seed, split: 'test', values });
  return tasks.map((task, i) => ({ task, dom: Math.floor(i / AXES.length) % 2 === 0 ? 'low' : 'high' }));
}

// ------------------------------------------------------------------ runs

interface Run {
  axis: string;
  dom: 'low' | 'high';
  constrained: boolean;
  valid: boolean;
  /** Our own check on top of the runtime's: the design passes `validateDesign`. */
  validated: boolean;
  errors: string[];
  stopReason: string;
  rawOutput: string;
  promptTokens: number;
  tokens: number;
  firstTokenMs: number;
  /** Time of the tokens after the first. */
  decodeMs: number;
  constraint?: Record<string, number>;
}

async function runOne(
  rt: OrchestratorRuntime,
  q: Query,
  constrained: boolean,
  seed: number,
  maxNewTokens: number | undefined,
  /** Stream per token (`onText`, as the app does) and, given a count, interrupt after that many tokens. */
  stream?: { stopAt?: number },
): Promise<Run> {
  const stopAt = stream?.stopAt;
  const out = await rt.generate({
    query: q.task.question,
    dom: q.dom,
    constrained,
    temperature: 0,
    seed,
    ...(maxNewTokens !== undefined ? { maxNewTokens } : {}),
    ...(stream
      ? {
          onText: (_delta: string, tokens: number) => {
            if (stopAt !== undefined && tokens >= stopAt) rt.interrupt();
          },
        }
      : {}),
  });
  if (!out.ok) throw new Error(`${out.problem.code}: ${out.problem.message}`);
  const r: Designed = out.result;
  const g = r.generation;
  const validated = r.design !== null && validateDesign(fromDesign(r.design)).length === 0;
  return {
    axis: q.task.axis,
    dom: q.dom,
    constrained,
    valid: r.design !== null,
    validated,
    errors: r.errors.slice(0, 5),
    stopReason: g.stopReason,
    rawOutput: g.rawOutput,
    promptTokens: g.promptTokens,
    tokens: g.tokens,
    firstTokenMs: g.firstTokenMs,
    decodeMs: g.tokens > 1 && g.tokensPerSecond > 0 ? ((g.tokens - 1) * 1000) / g.tokensPerSecond : 0,
    ...(r.designer.constraint ? { constraint: r.designer.constraint } : {}),
  };
}

/**
 * Both modes for every query, alternating which runs first. `matched`: both stream per token (as
 * the app does), and the plain run is interrupted once it has as many tokens as the constrained
 * output (known from a first, untimed constrained run), so both decode the same positions of the
 * same prompt (the plain one can still end earlier at its end token). The answer budget stays the
 * same, since the tiny prompt's query budget depends on it.
 */
async function runPairs(
  rt: OrchestratorRuntime,
  qs: readonly Query[],
  seed: number,
  maxNewTokens: number | undefined,
  progress: string,
  matched = false,
): Promise<{ constrained: Run[]; plain: Run[] }> {
  const constrained: Run[] = [];
  const plain: Run[] = [];
  for (const [i, q] of qs.entries()) {
    const length = matched ? (await runOne(rt, q, true, seed, maxNewTokens)).tokens : undefined;
    const order = i % 2 === 0 ? [true, false] : [false, true];
    for (const c of order)
      if (c) constrained.push(await runOne(rt, q, true, seed, maxNewTokens, matched ? {} : undefined));
      else
        plain.push(await runOne(rt, q, false, seed, maxNewTokens, matched ? { stopAt: length } : undefined));
    if ((i + 1) % 10 === 0 || i + 1 === qs.length)
      process.stderr.write(`${progress}: ${i + 1}/${qs.length}\n`);
  }
  return { constrained, plain };
}

// ------------------------------------------------------------------ summaries

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

interface Validity {
  n: number;
  valid: number;
  rate: number;
  meanPromptTokens: number;
  meanTokens: number;
  interval: [number, number];
  /** Our `validateDesign` re-check agrees with the runtime's verdict on every run. */
  recheckAgrees: boolean;
  byCell: Record<string, { n: number; valid: number }>;
  stopReasons: Record<string, number>;
  /** The most common problems of the invalid outputs (first problem of each, ids and numbers elided). */
  problems: { problem: string; count: number }[];
  /** The first few invalid outputs, whole, with their problems. */
  examples: {
    axis: string;
    dom: string;
    stopReason: string;
    tokens: number;
    errors: string[];
    rawOutput: string;
  }[];
}

/** A problem line with its particulars elided, so the same kind of problem counts once. */
const kindOf = (line: string): string =>
  line
    .replace(/"[^"]*"/g, '"…"')
    .replace(/'[^']*'/g, "'…'")
    .replace(/`[^`]*`/g, '`…`')
    .replace(/\d+/g, 'N')
    .slice(0, 160);

function validity(runs: readonly Run[]): Validity {
  const valid = runs.filter((r) => r.valid).length;
  const byCell: Validity['byCell'] = {};
  const stopReasons: Record<string, number> = {};
  const problems = new Map<string, number>();
  for (const r of runs) {
    const key = `${r.axis}/${r.dom}`;
    const c = (byCell[key] ??= { n: 0, valid: 0 });
    c.n++;
    if (r.valid) c.valid++;
    stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
    if (!r.valid) {
      const k =
        r.rawOutput.trim() === ''
          ? 'empty output'
          : `${kindOf(r.errors[0] ?? 'no design')}${r.stopReason === 'max-tokens' ? ' (at the token limit)' : ''}`;
      problems.set(k, (problems.get(k) ?? 0) + 1);
    }
  }
  return {
    n: runs.length,
    valid,
    rate: runs.length ? valid / runs.length : 0,
    meanPromptTokens: runs.length ? sum(runs.map((r) => r.promptTokens)) / runs.length : 0,
    meanTokens: runs.length ? sum(runs.map((r) => r.tokens)) / runs.length : 0,
    interval: wilson(valid, runs.length),
    recheckAgrees: runs.every((r) => r.valid === r.validated),
    byCell,
    stopReasons,
    problems: [...problems]
      .map(([problem, count]) => ({ problem, count }))
      .sort((a, b) => b.count - a.count)
      .slice(0, 5),
    examples: runs
      .filter((r) => !r.valid)
      .slice(0, 3)
      .map((r) => ({
        axis: r.axis,
        dom: r.dom,
        stopReason: r.stopReason,
        tokens: r.tokens,
        errors: r.errors,
        rawOutput: r.rawOutput,
      })),
  };
}

interface Speed {
  n: number;
  tokens: number;
  meanTokens: number;
  /** Decoded tokens after the first per second of their decoding, over all runs. */
  tokensPerSecond: number;
  firstTokenMsMedian: number;
  /** Constrained only: the constraint's mask time per step, ms, and its share of a token's time. */
  maskMsPerToken?: number;
  maskShare?: number;
  /** The whole processor call per step (accept the previous token, then mask), ms. */
  processorMsPerToken?: number;
  maskedSteps?: number;
  forcedTokens?: number;
  steps?: number;
}

function speed(runs: readonly Run[]): Speed {
  const decoded = sum(runs.map((r) => Math.max(0, r.tokens - 1)));
  const decodeMs = sum(runs.map((r) => r.decodeMs));
  const tokens = sum(runs.map((r) => r.tokens));
  const s: Speed = {
    n: runs.length,
    tokens,
    meanTokens: runs.length ? tokens / runs.length : 0,
    tokensPerSecond: decodeMs > 0 ? (decoded * 1000) / decodeMs : 0,
    firstTokenMsMedian: median(runs.map((r) => r.firstTokenMs)),
  };
  const stats = runs.map((r) => r.constraint).filter((c): c is Record<string, number> => !!c);
  if (stats.length > 0) {
    const steps = sum(stats.map((c) => c.steps ?? 0));
    const maskMs = sum(stats.map((c) => c.maskMs ?? 0));
    s.steps = steps;
    s.maskedSteps = sum(stats.map((c) => c.maskedSteps ?? 0));
    s.forcedTokens = sum(stats.map((c) => c.forcedTokens ?? 0));
    s.maskMsPerToken = steps > 0 ? maskMs / steps : 0;
    s.processorMsPerToken = steps > 0 ? sum(stats.map((c) => c.processorMs ?? 0)) / steps : 0;
    const msPerToken = s.tokensPerSecond > 0 ? 1000 / s.tokensPerSecond : 0;
    s.maskShare = msPerToken > 0 ? s.maskMsPerToken / msPerToken : 0;
  }
  return s;
}

interface Comparison {
  constrained: Speed;
  plain: Speed;
  /** constrained tokens/s ÷ plain tokens/s. */
  ratio: number;
  /** The same over the queries where both modes wrote the same text (null when none did). */
  sameOutput: { n: number; tokens: number; ratio: number } | null;
}

function compare(c: readonly Run[], p: readonly Run[]): Comparison {
  const constrained = speed(c);
  const plain = speed(p);
  const same = c.flatMap((r, i) => {
    const q = p[i] as Run;
    return r.rawOutput === q.rawOutput && r.tokens > 1 ? [[r, q] as const] : [];
  });
  let sameOutput: Comparison['sameOutput'] = null;
  if (same.length > 0) {
    const a = speed(same.map(([r]) => r));
    const b = speed(same.map(([, q]) => q));
    sameOutput = { n: same.length, tokens: a.tokens, ratio: a.tokensPerSecond / b.tokensPerSecond };
  }
  return { constrained, plain, ratio: constrained.tokensPerSecond / plain.tokensPerSecond, sameOutput };
}

// ------------------------------------------------------------------ report

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const f = (x: number | undefined, d = 1): string =>
  x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(d);

interface DtypeResult {
  dtype: Dtype;
  loadMs: number;
  warmupMs: number;
  files: Loaded['files'];
  comparison: Comparison;
}

function markdown(o: {
  command: string;
  model: ModelChoice;
  dtype: Dtype;
  n: number;
  speedN: number;
  seed: number;
  maxNewTokens: number | undefined;
  constrained: Validity;
  plain: Validity;
  main: Comparison;
  dtypes: DtypeResult[];
  seconds: number;
}): string {
  const m = machine();
  const v = (x: Validity): string =>
    `${x.valid}/${x.n} = ${pct(x.rate)} [${pct(x.interval[0])}, ${pct(x.interval[1])}]`;
  const problems = (x: Validity): string =>
    x.problems.length === 0
      ? 'none'
      : x.problems.map((p) => `${p.count}× ${p.problem.replace(/\|/g, '\\|')}`).join('; ');
  const fixture =
    o.model.kind === 'fixture'
      ? '**These are fixture results**: `models/baton-orchestrator-tiny/` was absent, so the bench ran a random-weight folder in the tiny format (tests/server/model-fixture.ts). They exercise the loading and decoding path; they say nothing about the trained model.\n\n'
      : '';
  const row = (label: string, c: Comparison, extra = ''): string =>
    `| ${label} | ${f(c.plain.tokensPerSecond)} | ${f(c.constrained.tokensPerSecond)} | **${f(c.ratio, 2)}×** | ${c.sameOutput ? `${f(c.sameOutput.ratio, 2)}× (${c.sameOutput.n})` : '—'} | ${f(1000 / c.plain.tokensPerSecond, 2)} / ${f(1000 / c.constrained.tokensPerSecond, 2)} | ${f(c.constrained.maskMsPerToken, 3)} (${pct(c.constrained.maskShare ?? 0)}) | ${f(c.constrained.processorMsPerToken, 3)} | ${f(c.plain.firstTokenMsMedian)} / ${f(c.constrained.firstTokenMsMedian)} | ${f(c.plain.meanTokens, 0)} / ${f(c.constrained.meanTokens, 0)} |${extra}`;
  return [
    `Measured with \`${o.command}\` (bench/orchestrator.bench.ts) on ${m.cores} × ${m.cpu} (no GPU; the machine is shared with other work, so timings are noisy; ratios are taken within one run), Node ${m.node}, transformers.js on onnxruntime-node (CPU), ${new Date().toISOString().slice(0, 10)}, ${Math.round(o.seconds)} s in all.`,
    '',
    `${fixture}Model: ${o.model.label} (\`${o.model.kind === 'fixture' ? 'fixture folder' : o.model.spec}\`). Everything goes through \`createOrchestratorRuntime\` with its Node wiring, with the deps \`baton orchestrate\` gives it: the tiny prompt format, \`designConstraint\` for constrained decoding, greedy, ${o.maxNewTokens === undefined ? "the runtime's answer budget (the model entry's `maxNewTokens`, at most the model's positions − 8; the tiny prompt's query gets the positions left over, at least 8 tokens)" : `at most ${o.maxNewTokens} new tokens`}. Queries: ${o.n} held-out MASBench tasks (test-split seeds from base seed ${o.seed}, the five axes in turn, Degree of MAS low and high alternating per round of axes: ${o.n / 10} per axis and DoM); each is decoded twice, constrained and unconstrained, alternating which runs first. Intervals are 95% Wilson (src/core/stats.ts). Valid = the runtime read a design (parsed, expanded from the role pool, \`validateDesign\` passed); the bench re-checks \`validateDesign\` on every design (agrees: ${o.constrained.recheckAgrees && o.plain.recheckAgrees ? 'yes' : 'NO'}).`,
    '',
    `### Validity (${o.dtype})`,
    '',
    '| decoding | valid designs [95% CI] | mean tokens (prompt / output) | stop reasons | most common problems of the invalid ones |',
    '|---|---|---|---|---|',
    `| constrained | ${v(o.constrained)} | ${f(o.constrained.meanPromptTokens, 0)} / ${f(o.constrained.meanTokens, 0)} | ${JSON.stringify(o.constrained.stopReasons).replace(/"/g, '')} | ${problems(o.constrained)} |`,
    `| unconstrained | ${v(o.plain)} | ${f(o.plain.meanPromptTokens, 0)} / ${f(o.plain.meanTokens, 0)} | ${JSON.stringify(o.plain.stopReasons).replace(/"/g, '')} | ${problems(o.plain)} |`,
    '',
    '### Speed',
    '',
    `Tokens/s counts the decoded tokens after the first over their decoding time (the first token's latency, which includes the prompt's forward pass, is its own column). **ratio** = constrained ÷ plain \`generate\` (no logits processor) tokens/s over the same prompts (goal ≥ 0.9×); **own lengths**: each mode decodes until its end token or the limit (the validity runs); **matched lengths**: both runs stream per token (\`onText\`, as the app does) and the plain run is interrupted once it has as many tokens as the constrained output (from an untimed constrained run first), so both decode the same positions of the same prompt unless the plain one ends earlier at its end token (compare the mean tokens). **same output** = the ratio over the queries where both wrote the same text, so the same tokens at the same positions (count in brackets). **mask** = the constraint's own mask time per step from its stats (\`maskMs / steps\`) and its share of a constrained token's time; **processor** = the whole logits-processor call per step (feeding the previous token to XGrammar's matcher and the writer, then masking), timed around the processor the runtime builds. The mask time for Qwen3's 151k-token vocabulary is measured apart in [Constrained decoding: mask time](#constrained-decoding-mask-time) (\`npm run bench:orchestrator-mask\`).`,
    '',
    '| run | plain tok/s | constrained tok/s | ratio | same output | ms/token (plain / constrained) | mask ms/token (share) | processor ms/token | first token ms, median (plain / constrained) | mean tokens (plain / constrained) |',
    '|---|---|---|---|---|---|---|---|---|---|',
    row(`${o.dtype}, all ${o.n} queries, own lengths`, o.main),
    ...o.dtypes.map((d) =>
      row(
        `${d.dtype}, ${o.speedN === o.n ? 'all' : 'first'} ${o.speedN} queries, matched lengths`,
        d.comparison,
      ),
    ),
    '',
    '| dtype | ONNX file bytes | load ms | warm-up ms |',
    '|---|---|---|---|',
    ...o.dtypes.map(
      (d) =>
        `| ${d.dtype} | ${sum(d.files.filter((x) => x.file.endsWith('.onnx')).map((x) => x.bytes)) || '—'} | ${f(d.loadMs, 0)} | ${f(d.warmupMs, 0)} |`,
    ),
    '',
    `Raw numbers: \`bench/results/orchestrator.json\`.`,
  ].join('\n');
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const { values: a } = parseArgs({
    options: {
      model: { type: 'string', default: DEFAULT_MODEL },
      n: { type: 'string', default: '200' },
      'speed-n': { type: 'string' },
      seed: { type: 'string', default: '1' },
      'max-new-tokens': { type: 'string' },
      out: { type: 'string', default: DEFAULT_OUT },
    },
  });
  const n = Number(a.n);
  // Every dtype on all the queries by default: fewer make the ratio as noisy as the machine.
  const speedN = a['speed-n'] === undefined ? n : Math.min(n, Number(a['speed-n']));
  const seed = Number(a.seed);
  const maxNewTokens = a['max-new-tokens'] === undefined ? undefined : Number(a['max-new-tokens']);
  if (
    ![n, speedN, seed, maxNewTokens ?? 1].every((x) => Number.isInteger(x) && x >= 0) ||
    n < 1 ||
    (maxNewTokens ?? 1) < 1
  )
    throw new Error('--n, --speed-n, --seed and --max-new-tokens are non-negative integers');
  const out = resolve(a.out);
  const t0 = performance.now();

  const manifest = readManifest();
  const model = await chooseModel(a.model, manifest);
  process.stderr.write(`model: ${model.label} (${model.folder})\n`);
  const reportPath = join(model.folder, 'training-report.json');
  const taskValues = existsSync(reportPath)
    ? ((JSON.parse(readFileSync(reportPath, 'utf8')) as { settings?: { values?: number[] } }).settings
        ?.values ?? DEFAULT_VALUES)
    : DEFAULT_VALUES;
  const qs = queries(n, seed, taskValues);
  const rt = nodeRuntime(manifest);

  // 1. Validity (and speed over every query) with the dtype the runtime picks for the CPU.
  const loaded = await rt.load({ model: model.spec, device: 'cpu', dtype: 'auto', useCache: false });
  if (!loaded.ok) throw new Error(`${loaded.problem.code}: ${loaded.problem.message}`);
  const mainDtype = loaded.model.dtype;
  process.stderr.write(`validity: ${n} queries, ${mainDtype}\n`);
  const all = await runPairs(rt, qs, seed, maxNewTokens, `validity ${mainDtype}`);

  // 2. Speed for each dtype the folder offers, on the first speedN queries, fresh load each.
  const dtypes: DtypeResult[] = [];
  for (const dtype of speedN > 0 ? dtypesIn(model.folder) : []) {
    const l = await rt.load({ model: model.spec, device: 'cpu', dtype, useCache: false });
    if (!l.ok) throw new Error(`${dtype}: ${l.problem.code}: ${l.problem.message}`);
    const runs = await runPairs(rt, qs.slice(0, speedN), seed, maxNewTokens, `speed ${dtype}`, true);
    dtypes.push({
      dtype,
      loadMs: l.model.loadMs,
      warmupMs: l.model.warmupMs,
      files: l.model.files,
      comparison: compare(runs.constrained, runs.plain),
    });
  }
  await rt.dispose();

  const result = {
    heading: HEADING,
    machine: machine(),
    date: new Date().toISOString(),
    model: { kind: model.kind, label: model.label, spec: model.kind === 'fixture' ? 'fixture' : a.model },
    settings: {
      n,
      speedN,
      seed,
      maxNewTokens: maxNewTokens ?? 'runtime default',
      taskValues,
      dtype: mainDtype,
      temperature: 0,
    },
    validity: { constrained: validity(all.constrained), unconstrained: validity(all.plain) },
    speed: { [mainDtype]: compare(all.constrained, all.plain) },
    dtypes,
    runs: [...all.constrained, ...all.plain].map(({ rawOutput, ...r }) => ({
      ...r,
      outputChars: rawOutput.length,
    })),
    seconds: (performance.now() - t0) / 1000,
  };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  const args = process.argv.slice(2).join(' ');
  const body = markdown({
    command: `npm run bench:orchestrator${args ? ` -- ${args}` : ''}`,
    model,
    dtype: mainDtype,
    n,
    speedN,
    seed,
    maxNewTokens,
    constrained: result.validity.constrained,
    plain: result.validity.unconstrained,
    main: result.speed[mainDtype] as Comparison,
    dtypes,
    seconds: result.seconds,
  });
  // The docs hold the default run's table; a run written elsewhere prints it instead.
  if (out === DEFAULT_OUT) writeDocSection(HEADING, body);
  process.stdout.write(`${body}\n`);
  if (result.validity.constrained.rate < 1) process.exitCode = 1;
}

await main();
