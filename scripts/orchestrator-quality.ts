/**
 * Quality of the tiny orchestrator on the simulator (simulated sub-agents, not a provider): on
 * held-out MASBench tasks (test-split seeds, all five axes), the model's designs, decoded greedily
 * from its prompt, parsed, expanded with the pool and run, against the teacher's designs for the
 * same tasks, the prior policy's greedy construction and standalone CoT. Every method runs under the
 * same simulator seed per task, one the teacher never scored its candidates under, so the teacher's
 * selection does not flatter it. Accuracy carries a 95% Wilson interval.
 *
 * The decoder is injected: the training script decodes with the reference forward pass on the
 * weights it just trained; `npm run bench:orchestrator-quality` loads the committed model folder
 * and does the same.
 */
import { AutoModelForCausalLM, LogitsProcessorList, Tensor, env } from '@huggingface/transformers';
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { wilson } from '../src/core/stats.ts';
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { Design } from '../src/core/trace.ts';
import { parseDesignXml } from '../src/design/xml.ts';
import { archiveDesign } from '../src/eval/index.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { tokenizerFromJson } from '../src/lm/index.ts';
import { AXES, taskOfMasbench, type MasBenchTask } from '../src/masbench/index.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TOKENS,
  createDesignConstraint,
  drawTeacherTasks,
  expandTinyDesign,
  scoreSeed,
  teacherExamples,
  loadDesignLogitsProcessor,
  tinyPromptIds,
  tinyRoles,
  type DesignRunner,
  type TeacherExample,
} from '../src/orchestrator/index.ts';
import {
  BatchedPolicy,
  DEFAULT_POOL,
  constructMany,
  priorCheckpoint,
  type RolePool,
} from '../src/policy/index.ts';

/** The simulator's fast path (src/executor/train-runners.ts) as a design runner. */
export const simulatorRun: DesignRunner = (design: Design, task: MasBenchTask, seed: number) =>
  simulatedRunners(task, seed).final({
    ...minimalTrace({ query: task.question }),
    task: taskOfMasbench(task),
    design,
  });

/** The simulator seed index every method is scored under (the teacher selects with indices 0..K−1). */
export const EVAL_SEED_INDEX = 1000;

/** Writes a design for a task in one DoM: the text after the prompt (end token excluded). */
export type DesignDecoder = (task: MasBenchTask, dom: 'low' | 'high') => Promise<string>;

export interface QualityRow {
  method: string;
  task: MasBenchTask;
  correct: boolean;
  tokens: number;
  /** False when the decoded text did not parse, expand or validate (scored wrong, 0 tokens). */
  valid: boolean;
  agents: number;
}

export interface QualityOptions {
  tasks: readonly MasBenchTask[];
  pool: RolePool;
  run: DesignRunner;
  /** The prior, batched (greedy constructions and the teacher's samples). */
  policy: BatchedPolicy;
  teacher: { samples: number; seeds: number; maxSteps: number };
  /** The model's decoder per label (e.g. `tiny (constrained)`). */
  decoders: Readonly<Record<string, DesignDecoder>>;
  onProgress?: (done: number, total: number) => void;
}

async function scoreDesign(
  method: string,
  task: MasBenchTask,
  design: Design,
  run: DesignRunner,
): Promise<QualityRow> {
  const r = await run(design, task, scoreSeed(task, EVAL_SEED_INDEX));
  return {
    method,
    task,
    correct: r.correct === true,
    tokens: r.tokens,
    valid: true,
    agents: design.agents.length,
  };
}

export async function qualityRows(
  o: QualityOptions,
): Promise<{ rows: QualityRow[]; teacher: TeacherExample[] }> {
  const rows: QualityRow[] = [];
  const teacher = await teacherExamples(o.tasks, {
    pool: o.pool,
    policy: o.policy,
    run: o.run,
    samples: o.teacher.samples,
    seeds: o.teacher.seeds,
    maxSteps: o.teacher.maxSteps,
  });
  const greedy = [];
  const per = o.policy.maxBatch;
  for (let i = 0; i < o.tasks.length; i += per) {
    const chunk = o.tasks.slice(i, i + per);
    greedy.push(
      ...(await constructMany({
        policy: o.policy,
        pool: o.pool,
        greedy: true,
        maxSteps: o.teacher.maxSteps,
        episodes: chunk.map((t) => ({ task: taskOfMasbench(t), seed: t.seed })),
      })),
    );
  }
  const cot = archiveDesign('cot');
  for (const [i, task] of o.tasks.entries()) {
    const t = teacher[i] as TeacherExample;
    rows.push(await scoreDesign('teacher (high)', task, t.high.design, o.run));
    rows.push(await scoreDesign('teacher (low)', task, t.low.design, o.run));
    rows.push(
      await scoreDesign('prior policy (greedy)', task, (greedy[i] as { design: Design }).design, o.run),
    );
    rows.push(await scoreDesign('CoT', task, cot, o.run));
    for (const [label, decode] of Object.entries(o.decoders)) {
      for (const dom of ['high', 'low'] as const) {
        const method = `${label} (${dom})`;
        const text = await decode(task, dom);
        const parsed = parseDesignXml(text, dom);
        const expanded =
          parsed.design && parsed.problems.length === 0 ? expandTinyDesign(parsed.design, o.pool) : null;
        if (!expanded?.ok) {
          rows.push({ method, task, correct: false, tokens: 0, valid: false, agents: 0 });
          continue;
        }
        rows.push(await scoreDesign(method, task, expanded.design, o.run));
      }
    }
    o.onProgress?.(i + 1, o.tasks.length);
  }
  return { rows, teacher };
}

export interface QualityCell {
  n: number;
  accuracy: number;
  interval: [number, number];
  tokens: number;
  valid: number;
  agents: number;
}

const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function cell(rows: readonly QualityRow[]): QualityCell {
  const k = rows.filter((r) => r.correct).length;
  return {
    n: rows.length,
    accuracy: rows.length ? k / rows.length : 0,
    interval: wilson(k, rows.length),
    tokens: mean(rows.map((r) => r.tokens)),
    valid: rows.length ? rows.filter((r) => r.valid).length / rows.length : 0,
    agents: mean(rows.map((r) => r.agents)),
  };
}

/** Per method: overall and per axis. */
export function qualitySummary(rows: readonly QualityRow[]): Record<string, Record<string, QualityCell>> {
  const out: Record<string, Record<string, QualityCell>> = {};
  for (const method of [...new Set(rows.map((r) => r.method))]) {
    const mine = rows.filter((r) => r.method === method);
    const byAxis: Record<string, QualityCell> = { all: cell(mine) };
    for (const axis of AXES) {
      const xs = mine.filter((r) => r.task.axis === axis);
      if (xs.length > 0) byAxis[axis] = cell(xs);
    }
    out[method] = byAxis;
  }
  return out;
}

const pct = (x: number): string => `${(100 * x).toFixed(0)}%`;

/** A markdown table: accuracy [95% CI] and mean tokens per axis, validity, agents. */
export function qualityMarkdown(summary: Record<string, Record<string, QualityCell>>): string {
  const axes = ['all', ...AXES].filter((a) => Object.values(summary).some((m) => m[a] !== undefined));
  const head = `| method | ${axes.map((a) => `${a}: acc [95% CI] · tokens`).join(' | ')} | valid | agents |`;
  const sep = `|---|${axes.map(() => '---').join('|')}|---|---|`;
  const lines = Object.entries(summary).map(([method, m]) => {
    const cells = axes.map((a) => {
      const c = m[a];
      return c
        ? `${pct(c.accuracy)} [${pct(c.interval[0])}, ${pct(c.interval[1])}] · ${Math.round(c.tokens)}`
        : '—';
    });
    const all = m.all as QualityCell;
    return `| ${method} | ${cells.join(' | ')} | ${pct(all.valid)} | ${all.agents.toFixed(1)} |`;
  });
  const n = (Object.values(summary)[0]?.all as QualityCell | undefined)?.n ?? 0;
  return [`${n} held-out tasks per method.`, '', head, sep, ...lines].join('\n');
}

// ------------------------------------------------------------------ command line

/**
 * `npm run bench:orchestrator-quality [-- --model DIR --dtype fp32|q8|q4 --tasks N]`: the committed
 * model folder loaded with transformers.js (Node, CPU) and decoded greedily; the teacher, the prior
 * and CoT on the same held-out tasks, with the settings its training report records.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: 'string', default: 'models/baton-orchestrator-tiny' },
      dtype: { type: 'string', default: 'fp32' },
      tasks: { type: 'string' },
    },
  });
  const dir = resolve(values.model);
  const dtype = values.dtype as 'fp32' | 'q8' | 'q4';
  if (!['fp32', 'q8', 'q4'].includes(dtype)) throw new Error('--dtype is fp32, q8 or q4');
  const report = JSON.parse(readFileSync(resolve(dir, 'training-report.json'), 'utf8')) as {
    seed: number;
    settings: {
      testTasks: number;
      values: number[];
      samples: number;
      scoreSeeds: number;
      maxSteps: number;
      maxQueryTokens: number;
    };
  };
  const parsed = tokenizerFromJson(readFileSync(resolve(dir, 'tokenizer.json'), 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  const tok = parsed.tokenizer;
  const end = tok.idOf(TINY_TOKENS.end) as number;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dirname(dir);
  const model = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype, device: 'cpu' });
  const nPositions = (
    JSON.parse(readFileSync(resolve(dir, 'config.json'), 'utf8')) as { n_positions: number }
  ).n_positions;
  const DesignLogitsProcessor = await loadDesignLogitsProcessor();
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t) as number);
  const decoder =
    (constrained: boolean): DesignDecoder =>
    async (task, dom) => {
      const prompt = tinyPromptIds(task.question, dom, (s) => tok.encode(s), report.settings.maxQueryTokens);
      const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
      const list = new LogitsProcessorList();
      if (constrained) {
        const constraint = await createDesignConstraint({
          vocab: tok.tokens,
          vocabType: 'byte_level',
          eosIds: [end],
          specialIds,
          format: 'tiny',
          dom,
          roles: tinyRoles(DEFAULT_POOL),
          // The design and its end token must fit in the positions the prompt leaves.
          maxTokens: nPositions - prompt.length,
        });
        list.push(new DesignLogitsProcessor(constraint));
      }
      const out = (await model.generate({
        input_ids,
        max_new_tokens: nPositions - prompt.length,
        do_sample: false,
        logits_processor: list,
      })) as InstanceType<typeof Tensor>;
      const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
      const cut = ids.includes(end) ? ids.slice(0, ids.indexOf(end)) : ids;
      return tok.decode(cut);
    };
  const count = values.tasks !== undefined ? Number(values.tasks) : report.settings.testTasks;
  const tasks = drawTeacherTasks({
    count,
    baseSeed: report.seed,
    split: 'test',
    values: report.settings.values,
  });
  const policy = BatchedPolicy.create(
    priorCheckpoint(DEFAULT_POOL),
    { backend: 'cpu', reason: 'bench', adapter: null, ctx: null },
    { maxBatch: 128 },
  );
  const t0 = performance.now();
  const { rows } = await qualityRows({
    tasks,
    pool: DEFAULT_POOL,
    run: simulatorRun,
    policy,
    teacher: {
      samples: report.settings.samples,
      seeds: report.settings.scoreSeeds,
      maxSteps: report.settings.maxSteps,
    },
    decoders: {
      [`tiny ${dtype}, transformers.js, constrained`]: decoder(true),
      [`tiny ${dtype}, transformers.js, unconstrained`]: decoder(false),
    },
  });
  policy.dispose();
  await model.dispose();
  process.stdout.write(
    `${qualityMarkdown(qualitySummary(rows))}\n\n(${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
