/**
 * Makes the offline orchestrator model, version 2 (format `tiny2`: src/orchestrator/tiny2-format.ts;
 * by default its 1.05 M-parameter size, models/baton-orchestrator-v2-1m/, and with `--embd 64
 * --layers 2 --steps 800 --name baton-orchestrator-tiny-v2` the 230 K one): teacher designs for generated MASBench tasks
 * (train-split seeds, all five axes, values 2–12; src/orchestrator/teacher2.ts, the best of a
 * trained construction policy's samples, the fixed designs and the archive agents on the
 * simulator), the v2 texts written from them (the plan stated in the thinking), a byte-level BPE
 * tokenizer with the generated questions' fixed phrases as whole tokens, a GPT-2-style model whose
 * positions hold the longest held-out question plus the longest design (measured, nothing cut or
 * dropped), trained on the compute core's WebAssembly SIMD backend (or its TypeScript CPU backend with
 * `--backend cpu`; src/lm/train.ts), and the transformers.js
 * folder with ONNX files (src/lm/hf-files.ts) plus `training-report.json`.
 *
 *   npx tsx scripts/train-orchestrator.ts [--seed 1] [--quick] [--out DIR] [--steps N] [--tasks N]
 *     [--backend wasm|cpu] [--deadline-min M] [--embd N --layers N --heads N --name NAME]
 *     [--compare-steps N]
 *
 * Deterministic under --seed (tasks, teacher, tokenizer, initial weights, example order and the backend's
 * arithmetic, which is deterministic run to run on each backend); the report's wall times are the only fields that change between runs.
 * `--quick` makes a toy run in seconds for tests (never commit its output). Held-out quality:
 * `npm run bench:orchestrator-quality` (scripts/orchestrator-quality.ts).
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { BpeTokenizer } from '../src/lm/index.ts';
import {
  cacheLength,
  emptyCache,
  initWeights,
  modelFolderFiles,
  paramCount,
  step,
  trainTinyGpt,
  type LmCurvePoint,
  type LmExample,
  type TinyGptConfig,
  type TinyGptWeights,
} from '../src/lm/index.ts';
import type { MasBenchTask } from '../src/masbench/index.ts';
import {
  TINY2_FORMAT,
  TINY_SPECIAL_TOKENS,
  TINY_TOKENS,
  createDesignConstraint,
  drawTeacherTasks,
  structureOf,
  teacher2Examples,
  tiny2Roles,
  tinyPromptIds,
  tinyQueryText,
  type Teacher2Example,
} from '../src/orchestrator/index.ts';
import { BatchedPolicy, DEFAULT_POOL } from '../src/policy/index.ts';
import {
  MASBENCH_PHRASES,
  cachedSimulator,
  longestTestQuery,
  pairs2Of,
  readCheckpoint,
  tokenizer2Of,
  type Pair2,
} from './orchestrator-v2-data.ts';

/**
 * What a plain `npm run train:orchestrator` makes: the largest model that trains in an hour on this
 * project's 2-core machine on the wasm backend (docs/orchestrator-model.md, "v2 1 M"). The smaller
 * v2 (`baton-orchestrator-tiny-v2`) is `--embd 64 --layers 2 --steps 800 --name
 * baton-orchestrator-tiny-v2`.
 */
export const MODEL_NAME = 'baton-orchestrator-v2-1m';

/** The construction policy whose samples the teacher weighs, and how it was made. */
export const TEACHER_POLICY = {
  file: 'scripts/orchestrator-data/teacher-policy.json',
  command:
    'node bin/baton.mjs train --preset mixed --iterations 40 --seed 3 --out scripts/orchestrator-data/teacher-policy.json',
};

export interface Settings {
  seed: number;
  trainTasks: number;
  /** G: constructions sampled per task from the teacher policy. */
  samples: number;
  /** Simulator seeds each teacher candidate is scored under. */
  scoreSeeds: number;
  /** Step budget of the sampled constructions. */
  maxSteps: number;
  values: readonly number[];
  vocabSize: number;
  /** Held-out (test-split) questions measured per axis and value for the position count. */
  measurePerCell: number;
  /** Positions are a multiple of this. */
  positionStep: number;
  model: Omit<TinyGptConfig, 'vocabSize' | 'nPositions'>;
  batch: number;
  steps: number;
  lr: number;
  warmup: number;
  policyFile: string | null;
  /** The compute core's backend for the LM's training (the teacher's policy runs on the CPU backend). */
  backend: 'cpu' | 'wasm';
  /** The model folder's name (its provenance and the report say it). */
  name: string;
  /**
   * After training, this many steps of the same run on the other backend (from the same initial
   * weights and examples), timed for the report's `msPerStepByBackend`; 0 skips them.
   */
  compareSteps: number;
}

const VALUES = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] as const;

export const FULL: Omit<Settings, 'seed'> = {
  trainTasks: 2000,
  samples: 8,
  scoreSeeds: 3,
  maxSteps: 6,
  values: VALUES,
  vocabSize: 4096,
  measurePerCell: 40,
  positionStep: 64,
  model: { nEmbd: 128, nHead: 4, nLayer: 4, layerNormEps: 1e-5 },
  batch: 4,
  steps: 1200,
  lr: 3e-3,
  warmup: 20,
  policyFile: TEACHER_POLICY.file,
  backend: 'wasm',
  name: MODEL_NAME,
  compareSteps: 3,
};

export const QUICK: Omit<Settings, 'seed'> = {
  ...FULL,
  trainTasks: 6,
  samples: 2,
  scoreSeeds: 1,
  maxSteps: 4,
  values: [2, 3],
  vocabSize: 400,
  measurePerCell: 2,
  positionStep: 16,
  model: { nEmbd: 16, nHead: 2, nLayer: 1, layerNormEps: 1e-5 },
  batch: 2,
  steps: 3,
  warmup: 0,
  policyFile: null,
  backend: 'cpu',
  compareSteps: 2,
};

const CPU = { backend: 'cpu', reason: 'training script', adapter: null, ctx: null } as const;
const WASM = { backend: 'wasm', reason: 'training script', adapter: null, ctx: null } as const;

export function endId(tok: BpeTokenizer): number {
  const id = tok.idOf(TINY_TOKENS.end);
  if (id === undefined) throw new Error('the tokenizer has no end token');
  return id;
}

/** The whole query, never cut. */
export const promptOf = (tok: BpeTokenizer, question: string, dom: 'low' | 'high'): number[] =>
  tinyPromptIds(question, dom, (s) => tok.encode(s), Number.POSITIVE_INFINITY);

export const lmExample = (tok: BpeTokenizer, p: Pair2): LmExample => ({
  prompt: promptOf(tok, p.task.question, p.dom),
  target: [...tok.encode(p.text), endId(tok)],
});

/** Writes a design for a task in one DoM: the text after the prompt (end token excluded). */
export type DesignDecoder = (task: MasBenchTask, dom: 'low' | 'high') => Promise<string>;

/**
 * Greedy decoding with the reference forward pass and its KV cache; stops at the end token or at
 * the model's last position. `constrained`: every step's logits go through the `tiny2`
 * constraint (src/orchestrator/constrain), so the output is a valid design.
 */
export function referenceDecoder(
  w: TinyGptWeights,
  tok: BpeTokenizer,
  constrained = false,
  fieldTokens?: number,
): DesignDecoder {
  const end = endId(tok);
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t) as number);
  return async (task, dom) => {
    const prompt = promptOf(tok, task.question, dom);
    const constraint = constrained
      ? await createDesignConstraint({
          vocab: tok.tokens,
          vocabType: 'byte_level',
          eosIds: [end],
          specialIds,
          format: 'tiny2',
          dom,
          roles: tiny2Roles(DEFAULT_POOL),
          maxTokens: w.config.nPositions - prompt.length,
          ...(fieldTokens !== undefined ? { fieldTokens: { text: fieldTokens } } : {}),
        })
      : null;
    const cache = emptyCache(w.config);
    const V = w.config.vocabSize;
    let logits = step(w, prompt, cache);
    let row = prompt.length - 1;
    const out: number[] = [];
    while (cacheLength(cache) < w.config.nPositions) {
      const next = logits.slice(row * V, (row + 1) * V);
      if (constraint) constraint.apply(next);
      let best = 0;
      for (let v = 1; v < V; v++) if ((next[v] as number) > (next[best] as number)) best = v;
      constraint?.accept(best);
      if (best === end) break;
      out.push(best);
      logits = step(w, [best], cache);
      row = 0;
    }
    return tok.decode(out);
  };
}

const quantiles = (xs: readonly number[]): { p50: number; p90: number; max: number } => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * (s.length - 1)))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), max: s[s.length - 1] ?? 0 };
};

const round = (x: number, d = 4): number => Number(x.toFixed(d));

export interface RunResult {
  files: Map<string, Uint8Array | string>;
  weights: TinyGptWeights;
  tokenizer: BpeTokenizer;
  report: Record<string, unknown>;
  teacher: Teacher2Example[];
}

function teacherStats(teacher: readonly Teacher2Example[], dom: 'low' | 'high'): Record<string, unknown> {
  const n = Math.max(1, teacher.length);
  const count = (f: (e: Teacher2Example) => string): Record<string, number> => {
    const m: Record<string, number> = {};
    for (const e of teacher) m[f(e)] = (m[f(e)] ?? 0) + 1;
    return m;
  };
  return {
    accuracy: round(teacher.reduce((a, e) => a + e[dom].accuracy, 0) / n),
    tokens: Math.round(teacher.reduce((a, e) => a + e[dom].tokens, 0) / n),
    agents: round(teacher.reduce((a, e) => a + e[dom].plan.agents.length, 0) / n, 2),
    depth: round(teacher.reduce((a, e) => a + structureOf(e[dom].plan).depth, 0) / n, 2),
    width: round(teacher.reduce((a, e) => a + structureOf(e[dom].plan).width, 0) / n, 2),
    source: count((e) => e[dom].source),
    chosen: count((e) => e[dom].name ?? (e[dom].source === 'policy' ? 'policy sample' : e[dom].source)),
  };
}

/** The whole pipeline; returns the folder's files (the caller writes them). */
export async function makeOrchestratorModel(
  s: Settings,
  o: { log: (line: string) => void; deadlineMs?: number },
): Promise<RunResult> {
  const t0 = performance.now();
  const pool = DEFAULT_POOL;
  const cp = s.policyFile ? readCheckpoint(s.policyFile) : null;
  const policy = cp ? BatchedPolicy.create(cp.checkpoint, CPU, { maxBatch: 128 }) : null;
  const tasks = drawTeacherTasks({ count: s.trainTasks, baseSeed: s.seed, split: 'train', values: s.values });
  const teacher = await teacher2Examples(
    tasks,
    { pool, policy, run: cachedSimulator(), samples: s.samples, seeds: s.scoreSeeds, maxSteps: s.maxSteps },
    (d) => {
      if (d % 200 === 0) o.log(`teacher: ${d}/${tasks.length} tasks`);
    },
  );
  policy?.dispose();
  const tTeacher = performance.now();
  o.log(`teacher: ${teacher.length} tasks in ${((tTeacher - t0) / 1000).toFixed(1)} s`);

  const pairs = pairs2Of(teacher, pool);
  const tok = tokenizer2Of(pairs, s.vocabSize);
  const examples = pairs.map((p) => lmExample(tok, p));
  const longestQuery = longestTestQuery(tok, s.values, s.measurePerCell, s.seed + 1000);
  const trainQuery = Math.max(...pairs.map((p) => tok.encode(tinyQueryText(p.task.question)).length));
  const longestDesign = Math.max(...examples.map((e) => e.target.length));
  // Prompt = DoM marker + query + design marker; the model reads the last target token's position.
  const need = Math.max(longestQuery.tokens, trainQuery) + 2 + longestDesign;
  const nPositions = Math.ceil(need / s.positionStep) * s.positionStep;
  const config: TinyGptConfig = { vocabSize: tok.vocabSize, nPositions, ...s.model };
  const seq = nPositions;
  o.log(
    `tokenizer: ${tok.vocabSize} tokens; longest held-out query ${longestQuery.tokens} (${longestQuery.id}, of ${longestQuery.measured}), longest train query ${trainQuery}, longest design ${longestDesign} → ${nPositions} positions; ${examples.length} examples, none dropped; ${paramCount(config)} parameters`,
  );

  const curve: LmCurvePoint[] = [];
  const stepAt: number[] = [];
  const abort = new AbortController();
  const runConfig = (steps: number) => ({
    batch: s.batch,
    seq,
    steps,
    lr: s.lr,
    warmup: Math.min(s.warmup, s.steps - 1),
    seed: s.seed,
  });
  const trained = await trainTinyGpt({
    weights: initWeights(config, s.seed),
    examples,
    config: runConfig(s.steps),
    choice: s.backend === 'wasm' ? WASM : CPU,
    signal: abort.signal,
    onStep: (p) => {
      curve.push(p);
      stepAt.push(performance.now());
      if (p.step === 1 || p.step % 10 === 0 || p.step === s.steps)
        o.log(
          `step ${p.step}/${s.steps} loss ${p.loss.toFixed(4)} lr ${p.lr.toExponential(2)} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
        );
      if (o.deadlineMs !== undefined && performance.now() - t0 > o.deadlineMs) abort.abort();
    },
  });
  const tTrain = performance.now();
  // The first steps of the same run on the other backend, for the time per step on each.
  const other = s.backend === 'wasm' ? 'cpu' : 'wasm';
  const otherLoss: number[] = [];
  const otherAt: number[] = [];
  if (s.compareSteps > 0) {
    const n = Math.min(s.compareSteps, s.steps);
    const stop = new AbortController();
    await trainTinyGpt({
      weights: initWeights(config, s.seed),
      examples,
      // The same schedule as the run (its warm-up and cosine over s.steps), stopped after n steps.
      config: runConfig(s.steps),
      choice: other === 'wasm' ? WASM : CPU,
      signal: stop.signal,
      onStep: (p) => {
        otherLoss.push(p.loss);
        otherAt.push(performance.now());
        if (otherLoss.length >= n) stop.abort();
      },
    });
    o.log(`${other}: ${otherLoss.length} steps for comparison`);
  }
  // Wall time between the first and the last step (compiling and the first step excluded).
  const perStep = (at: readonly number[]): number | null =>
    at.length >= 2 ? round(((at[at.length - 1] as number) - (at[0] as number)) / (at.length - 1), 1) : null;

  const end = endId(tok);
  const pad = tok.idOf(TINY_TOKENS.pad) as number;
  const last = curve[curve.length - 1];
  const files = modelFolderFiles(trained.weights, {
    tokenizerJson: tok.toTokenizerJson(),
    tokenizerConfig: tok.tokenizerConfigJson({
      eos: TINY_TOKENS.end,
      pad: TINY_TOKENS.pad,
      maxLength: nPositions,
    }),
    specialTokens: { bos: end, eos: end, pad },
    meta: {
      name: s.name,
      description:
        'Writes a MAS design in the tiny2 format (src/orchestrator/tiny2-format.ts): the plan in words, then the agents, or in low DoM a direct answer, for a whole query after <|dom_low|> or <|dom_high|>. Trained on teacher designs chosen on the simulator for generated MASBench tasks.',
      source: 'scripts/train-orchestrator.ts',
      seed: s.seed,
      training: {
        examples: examples.length,
        steps: curve.length,
        batch: s.batch,
        window: seq,
        finalLoss: last ? round(last.loss) : 0,
        format: TINY2_FORMAT,
        maxQueryTokens: nPositions,
      },
    },
  });
  const byAxis = (xs: readonly MasBenchTask[]): Record<string, number> => {
    const m: Record<string, number> = {};
    for (const t of xs) m[`${t.axis}`] = (m[`${t.axis}`] ?? 0) + 1;
    return m;
  };
  const report = {
    format: 'baton.orchestrator-training/2',
    model: s.name,
    promptFormat: TINY2_FORMAT,
    seed: s.seed,
    settings: s,
    teacherPolicy: cp
      ? { ...TEACHER_POLICY, sha256: cp.sha256, name: cp.checkpoint.name }
      : { file: null, note: 'no policy samples (quick run)' },
    data: {
      trainTasks: tasks.length,
      byAxis: byAxis(tasks),
      byValue: Object.fromEntries(s.values.map((v) => [v, tasks.filter((t) => t.value === v).length])),
      pairs: pairs.length,
      examplesUsed: examples.length,
      examplesTooLong: 0,
      targetTokens: examples.reduce((n, e) => n + e.target.length, 0),
      promptTokens: quantiles(examples.map((e) => e.prompt.length)),
      designTokens: {
        low: quantiles(examples.filter((_, i) => pairs[i]?.dom === 'low').map((e) => e.target.length)),
        high: quantiles(examples.filter((_, i) => pairs[i]?.dom === 'high').map((e) => e.target.length)),
      },
      positions: {
        longestHeldOutQuery: longestQuery,
        longestTrainQuery: trainQuery,
        longestDesign,
        nPositions,
      },
      candidatesPerTask: round(
        teacher.reduce((a, e) => a + e.candidates, 0) / Math.max(1, teacher.length),
        1,
      ),
      teacherOnTrain: { high: teacherStats(teacher, 'high'), low: teacherStats(teacher, 'low') },
    },
    tokenizer: {
      vocabSize: tok.vocabSize,
      merges: tok.data.merges.length,
      special: TINY_SPECIAL_TOKENS,
      added: tok.data.addedTokens?.length ?? 0,
      phrases: MASBENCH_PHRASES.length,
    },
    architecture: { config, parameters: paramCount(config) },
    training: {
      steps: curve.length,
      plannedSteps: s.steps,
      stoppedAtDeadline: curve.length < s.steps,
      batch: s.batch,
      window: seq,
      backend: s.backend,
      loss: curve.map((p) => round(p.loss)),
      firstLoss: curve[0] ? round(curve[0].loss) : null,
      lastLoss: last ? round(last.loss) : null,
      // The same first steps on the other backend: equal losses within rounding.
      otherBackend: { backend: other, loss: otherLoss.map((l) => round(l)) },
    },
    wallSeconds: {
      teacher: round((tTeacher - t0) / 1000, 1),
      training: round((tTrain - tTeacher) / 1000, 1),
      trainingMsPerStep: curve.length > 0 ? round((tTrain - tTeacher) / curve.length, 1) : null,
      msPerStepByBackend: { [s.backend]: perStep(stepAt), [other]: perStep(otherAt) },
      total: round((performance.now() - t0) / 1000, 1),
    },
  };
  files.set('training-report.json', `${JSON.stringify(report, null, 2)}\n`);
  return { files, report, weights: trained.weights, tokenizer: tok, teacher };
}

/** Writes the folder (replacing what was there). */
export function writeFolder(dir: string, files: Map<string, Uint8Array | string>): void {
  rmSync(dir, { recursive: true, force: true });
  for (const [path, data] of files) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, data);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string' },
      steps: { type: 'string' },
      tasks: { type: 'string' },
      'deadline-min': { type: 'string' },
      backend: { type: 'string' },
      embd: { type: 'string' },
      layers: { type: 'string' },
      heads: { type: 'string' },
      name: { type: 'string' },
      'compare-steps': { type: 'string' },
    },
  });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new Error('--seed must be an integer ≥ 0');
  const base = values.quick ? QUICK : FULL;
  const int = (v: string | undefined, fallback: number, name: string): number => {
    const n = v !== undefined ? Number(v) : fallback;
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer`);
    return n;
  };
  const steps = int(values.steps, base.steps, 'steps');
  const trainTasks = int(values.tasks, base.trainTasks, 'tasks');
  const backend = values.backend ?? base.backend;
  if (backend !== 'cpu' && backend !== 'wasm') throw new Error('--backend must be cpu or wasm');
  const model = {
    ...base.model,
    nEmbd: int(values.embd, base.model.nEmbd, 'embd'),
    nLayer: int(values.layers, base.model.nLayer, 'layers'),
    nHead: int(values.heads, base.model.nHead, 'heads'),
  };
  if (model.nEmbd % model.nHead !== 0) throw new Error('--embd must be a multiple of --heads');
  const name = values.name ?? base.name;
  if (!/^[a-z0-9][a-z0-9.-]{0,63}$/.test(name))
    throw new Error('--name must be lower-case letters, digits, dots and dashes');
  const compareSteps =
    values['compare-steps'] !== undefined ? Number(values['compare-steps']) : base.compareSteps;
  if (!Number.isInteger(compareSteps) || compareSteps < 0 || compareSteps > 100)
    throw new Error('--compare-steps must be a whole number from 0 to 100');
  const deadline = values['deadline-min'] !== undefined ? Number(values['deadline-min']) * 60_000 : undefined;
  const out = resolve(
    values.out ??
      (values.quick ? join('node_modules', '.cache', 'orchestrator-quick') : join('models', name)),
  );
  const r = await makeOrchestratorModel(
    { ...base, seed, steps, trainTasks, backend, model, name, compareSteps },
    {
      log: (l) => process.stdout.write(`${l}\n`),
      ...(deadline !== undefined ? { deadlineMs: deadline } : {}),
    },
  );
  writeFolder(out, r.files);
  process.stdout.write(`wrote ${[...r.files.keys()].join(', ')} to ${out}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
