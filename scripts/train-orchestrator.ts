/**
 * Makes the offline orchestrator model, models/baton-orchestrator-tiny/: teacher designs for
 * generated MASBench tasks (train-split seeds; src/orchestrator/teacher.ts, scored on the simulator),
 * a byte-level BPE tokenizer trained on them (src/lm/tokenizer.ts), a GPT-2-style model of a few
 * hundred thousand parameters trained on (prompt, design) pairs in the tiny format on the compute
 * core (src/lm/train.ts), its quality on held-out tasks (scripts/orchestrator-quality.ts), and the
 * transformers.js folder with ONNX files (src/lm/hf-files.ts) plus `training-report.json`.
 *
 *   npx tsx scripts/train-orchestrator.ts [--seed 1] [--quick] [--out DIR] [--steps N] [--no-quality]
 *
 * Deterministic under --seed (tasks, teacher, tokenizer, initial weights, example order and the CPU
 * backend's arithmetic); the report's wall times are the only fields that change between runs.
 * `--quick` makes a toy run in seconds for tests (never commit its output).
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
  trainTokenizer,
  type LmCurvePoint,
  type LmExample,
  type TinyGptConfig,
  type TinyGptWeights,
} from '../src/lm/index.ts';
import type { MasBenchTask } from '../src/masbench/index.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TAG_TOKENS,
  TINY_TOKENS,
  createDesignConstraint,
  drawTeacherTasks,
  teacherExamples,
  tinyDesignText,
  tinyPromptIds,
  tinyQueryText,
  tinyRoles,
  type TeacherExample,
} from '../src/orchestrator/index.ts';
import { BatchedPolicy, DEFAULT_POOL, priorCheckpoint } from '../src/policy/index.ts';
import {
  qualityMarkdown,
  qualityRows,
  qualitySummary,
  simulatorRun,
  type DesignDecoder,
} from './orchestrator-quality.ts';

export const MODEL_NAME = 'baton-orchestrator-tiny';

export interface Settings {
  seed: number;
  trainTasks: number;
  testTasks: number;
  /** G: prior constructions sampled per task for the high-DoM teacher. */
  samples: number;
  /** Simulator seeds each teacher candidate is scored under. */
  scoreSeeds: number;
  /** Step budget of the prior's constructions (at most maxSteps − 1 agents plus the summariser). */
  maxSteps: number;
  values: readonly number[];
  vocabSize: number;
  /** Query tokens kept in the prompt (its end). */
  maxQueryTokens: number;
  /** Longest prompt + design the training window holds; longer examples are left out (counted). */
  maxSequence: number;
  model: Omit<TinyGptConfig, 'vocabSize'>;
  batch: number;
  steps: number;
  lr: number;
  warmup: number;
}

export const FULL: Omit<Settings, 'seed'> = {
  trainTasks: 600,
  testTasks: 100,
  samples: 8,
  scoreSeeds: 3,
  maxSteps: 6,
  values: [2, 3, 4, 5, 6],
  vocabSize: 2048,
  maxQueryTokens: 64,
  maxSequence: 224,
  model: { nPositions: 256, nEmbd: 64, nHead: 4, nLayer: 2, layerNormEps: 1e-5 },
  batch: 8,
  steps: 160,
  lr: 3e-3,
  warmup: 20,
};

export const QUICK: Omit<Settings, 'seed'> = {
  ...FULL,
  trainTasks: 10,
  testTasks: 5,
  samples: 2,
  scoreSeeds: 1,
  maxSteps: 4,
  vocabSize: 400,
  maxQueryTokens: 24,
  maxSequence: 128,
  model: { nPositions: 128, nEmbd: 16, nHead: 2, nLayer: 1, layerNormEps: 1e-5 },
  batch: 4,
  steps: 3,
  warmup: 0,
};

const CPU = { backend: 'cpu', reason: 'training script', adapter: null, ctx: null } as const;

/** One training text: a task, a DoM and the teacher's design in the tiny format. */
export interface Pair {
  task: MasBenchTask;
  dom: 'low' | 'high';
  design: string;
}

export const pairsOf = (examples: readonly TeacherExample[]): Pair[] =>
  examples.flatMap((e) => [
    { task: e.task, dom: 'low' as const, design: tinyDesignText(e.low.design, DEFAULT_POOL) },
    { task: e.task, dom: 'high' as const, design: tinyDesignText(e.high.design, DEFAULT_POOL) },
  ]);

export function tokenizerOf(pairs: readonly Pair[], vocabSize: number): BpeTokenizer {
  return trainTokenizer(
    pairs.flatMap((p) => [tinyQueryText(p.task.question), p.design]),
    { vocabSize, specialTokens: TINY_SPECIAL_TOKENS, addedTokens: TINY_TAG_TOKENS },
  );
}

export function endId(tok: BpeTokenizer): number {
  const id = tok.idOf(TINY_TOKENS.end);
  if (id === undefined) throw new Error('the tokenizer has no end token');
  return id;
}

export function lmExample(tok: BpeTokenizer, p: Pair, maxQueryTokens: number): LmExample {
  return {
    prompt: tinyPromptIds(p.task.question, p.dom, (s) => tok.encode(s), maxQueryTokens),
    target: [...tok.encode(p.design), endId(tok)],
  };
}

/**
 * Greedy decoding with the reference forward pass and its KV cache; stops at the end token or at
 * the model's last position. `constrained`: every step's logits go through the `tiny` format's
 * constraint (src/orchestrator/constrain), so the output is a valid design.
 */
export function referenceDecoder(
  w: TinyGptWeights,
  tok: BpeTokenizer,
  maxQueryTokens: number,
  constrained = false,
  /** Most tokens of a free text field under the constraint (default: the engine's). */
  textFieldTokens?: number,
): DesignDecoder {
  const end = endId(tok);
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t) as number);
  return async (task, dom) => {
    const constraint = constrained
      ? await createDesignConstraint({
          vocab: tok.tokens,
          vocabType: 'byte_level',
          eosIds: [end],
          specialIds,
          format: 'tiny',
          dom,
          roles: tinyRoles(DEFAULT_POOL),
          ...(textFieldTokens !== undefined ? { fieldTokens: { text: textFieldTokens } } : {}),
        })
      : null;
    const prompt = tinyPromptIds(task.question, dom, (s) => tok.encode(s), maxQueryTokens);
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
  qualityTable: string | null;
}

/** The whole pipeline; returns the folder's files (the caller writes them). */
export async function makeOrchestratorModel(
  s: Settings,
  o: { quality: boolean; log: (line: string) => void },
): Promise<RunResult> {
  const t0 = performance.now();
  const pool = DEFAULT_POOL;
  const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 128 });
  const tasks = drawTeacherTasks({ count: s.trainTasks, baseSeed: s.seed, split: 'train', values: s.values });
  const teacher = await teacherExamples(tasks, {
    pool,
    policy,
    run: simulatorRun,
    samples: s.samples,
    seeds: s.scoreSeeds,
    maxSteps: s.maxSteps,
  });
  const tTeacher = performance.now();
  o.log(`teacher: ${teacher.length} tasks in ${((tTeacher - t0) / 1000).toFixed(1)} s`);

  const pairs = pairsOf(teacher);
  const tok = tokenizerOf(pairs, s.vocabSize);
  const all = pairs.map((p) => lmExample(tok, p, s.maxQueryTokens));
  const fits = all.filter((e) => e.prompt.length + e.target.length - 1 <= s.maxSequence);
  const seq = Math.max(...fits.map((e) => e.prompt.length + e.target.length - 1));
  const config: TinyGptConfig = { vocabSize: tok.vocabSize, ...s.model };
  if (seq > config.nPositions) throw new Error(`window ${seq} exceeds nPositions ${config.nPositions}`);
  const queryTokens = pairs.map((p) => tok.encode(tinyQueryText(p.task.question)).length);
  o.log(
    `tokenizer: ${tok.vocabSize} tokens; ${fits.length}/${all.length} examples fit ${s.maxSequence} positions; window ${seq}; ${paramCount(config)} parameters`,
  );

  const curve: LmCurvePoint[] = [];
  const trained = await trainTinyGpt({
    weights: initWeights(config, s.seed),
    examples: fits,
    config: { batch: s.batch, seq, steps: s.steps, lr: s.lr, warmup: s.warmup, seed: s.seed },
    choice: CPU,
    onStep: (p) => {
      curve.push(p);
      if (p.step === 1 || p.step % 10 === 0 || p.step === s.steps)
        o.log(`step ${p.step}/${s.steps} loss ${p.loss.toFixed(4)} lr ${p.lr.toExponential(2)}`);
    },
  });
  const tTrain = performance.now();

  let quality: Record<string, unknown> | null = null;
  let qualityTable: string | null = null;
  if (o.quality) {
    const test = drawTeacherTasks({ count: s.testTasks, baseSeed: s.seed, split: 'test', values: s.values });
    const { rows } = await qualityRows({
      tasks: test,
      pool,
      run: simulatorRun,
      policy,
      teacher: { samples: s.samples, seeds: s.scoreSeeds, maxSteps: s.maxSteps },
      decoders: {
        'tiny model, constrained': referenceDecoder(trained.weights, tok, s.maxQueryTokens, true),
        'tiny model, unconstrained': referenceDecoder(trained.weights, tok, s.maxQueryTokens),
      },
      onProgress: (d, n) => {
        if (d % 20 === 0 || d === n) o.log(`quality: ${d}/${n} held-out tasks`);
      },
    });
    const summary = qualitySummary(rows);
    quality = { tasks: test.length, simulatorSeedIndex: 'EVAL_SEED_INDEX', summary };
    qualityTable = qualityMarkdown(summary);
  }
  const tQuality = performance.now();
  policy.dispose();

  const end = endId(tok);
  const pad = tok.idOf(TINY_TOKENS.pad) as number;
  const last = curve[curve.length - 1];
  const files = modelFolderFiles(trained.weights, {
    tokenizerJson: tok.toTokenizerJson(),
    tokenizerConfig: tok.tokenizerConfigJson({
      eos: TINY_TOKENS.end,
      pad: TINY_TOKENS.pad,
      maxLength: config.nPositions,
    }),
    specialTokens: { bos: end, eos: end, pad },
    meta: {
      name: MODEL_NAME,
      description:
        'Writes a MAS design in the tiny format (src/orchestrator/tiny-format.ts) for a query after <|dom_low|> or <|dom_high|>. Trained on teacher designs chosen on the simulator for generated MASBench tasks.',
      source: 'scripts/train-orchestrator.ts',
      seed: s.seed,
      training: {
        examples: fits.length,
        steps: s.steps,
        batch: s.batch,
        window: seq,
        finalLoss: last ? round(last.loss) : 0,
        format: 'tiny',
        maxQueryTokens: s.maxQueryTokens,
      },
    },
  });
  const report = {
    format: 'baton.orchestrator-training/1',
    model: MODEL_NAME,
    seed: s.seed,
    settings: s,
    data: {
      trainTasks: tasks.length,
      byAxis: Object.fromEntries(
        [...new Set(tasks.map((t) => t.axis))].map((a) => [a, tasks.filter((t) => t.axis === a).length]),
      ),
      pairs: pairs.length,
      examplesUsed: fits.length,
      examplesTooLong: all.length - fits.length,
      targetTokens: fits.reduce((n, e) => n + e.target.length, 0),
      queryTokens: quantiles(queryTokens),
      promptTokens: quantiles(all.map((e) => e.prompt.length)),
      designTokens: {
        low: quantiles(all.filter((_, i) => pairs[i]?.dom === 'low').map((e) => e.target.length)),
        high: quantiles(all.filter((_, i) => pairs[i]?.dom === 'high').map((e) => e.target.length)),
      },
      teacherOnTrain: {
        high: {
          accuracy: round(teacher.reduce((a, e) => a + e.high.accuracy, 0) / teacher.length),
          tokens: Math.round(teacher.reduce((a, e) => a + e.high.tokens, 0) / teacher.length),
          agents: round(teacher.reduce((a, e) => a + e.high.design.agents.length, 0) / teacher.length, 2),
        },
        low: {
          accuracy: round(teacher.reduce((a, e) => a + e.low.accuracy, 0) / teacher.length),
          tokens: Math.round(teacher.reduce((a, e) => a + e.low.tokens, 0) / teacher.length),
          roles: Object.fromEntries(
            [...new Set(teacher.map((e) => e.low.plan.agents[0]?.role ?? ''))].map((r) => [
              r,
              teacher.filter((e) => e.low.plan.agents[0]?.role === r).length,
            ]),
          ),
        },
      },
    },
    tokenizer: {
      vocabSize: tok.vocabSize,
      merges: tok.data.merges.length,
      special: TINY_SPECIAL_TOKENS,
      added: TINY_TAG_TOKENS.length,
    },
    architecture: { config, parameters: paramCount(config) },
    training: {
      steps: s.steps,
      batch: s.batch,
      window: seq,
      backend: 'cpu',
      loss: curve.map((p) => round(p.loss)),
      firstLoss: curve[0] ? round(curve[0].loss) : null,
      lastLoss: last ? round(last.loss) : null,
    },
    quality,
    wallSeconds: {
      teacher: round((tTeacher - t0) / 1000, 1),
      training: round((tTrain - tTeacher) / 1000, 1),
      quality: round((tQuality - tTrain) / 1000, 1),
      total: round((performance.now() - t0) / 1000, 1),
    },
  };
  files.set('training-report.json', `${JSON.stringify(report, null, 2)}\n`);
  return { files, report, qualityTable, weights: trained.weights, tokenizer: tok };
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
      'no-quality': { type: 'boolean', default: false },
    },
  });
  const seed = Number(values.seed);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new Error('--seed must be an integer ≥ 0');
  const base = values.quick ? QUICK : FULL;
  const steps = values.steps !== undefined ? Number(values.steps) : base.steps;
  if (!Number.isInteger(steps) || steps < 1) throw new Error('--steps must be a positive integer');
  const out = resolve(
    values.out ??
      (values.quick ? join('node_modules', '.cache', 'orchestrator-quick') : join('models', MODEL_NAME)),
  );
  const r = await makeOrchestratorModel(
    { ...base, seed, steps },
    { quality: !values['no-quality'], log: (l) => process.stdout.write(`${l}\n`) },
  );
  writeFolder(out, r.files);
  if (r.qualityTable) process.stdout.write(`\n${r.qualityTable}\n`);
  process.stdout.write(`wrote ${[...r.files.keys()].join(', ')} to ${out}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
