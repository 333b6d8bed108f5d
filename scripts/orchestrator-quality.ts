/**
 * `npm run bench:orchestrator-quality`: the orchestrator models against the teacher, the
 * construction policies and the standalone agents on held-out MASBench tasks, on the simulator
 * (simulated sub-agents, not a provider). Tasks: test-split seeds only, the five axes in turn,
 * values 2–12 drawn by the seed. Every method runs under the same simulator seed per task, one
 * the teacher never scored its candidates under, so its selection does not flatter it.
 *
 * Methods: the model folders (v1 `models/baton-orchestrator-tiny`, v2 after SFT
 * `models/baton-orchestrator-tiny-v2`, and v2 after GRPO when `--grpo <folder>` names one) loaded
 * with transformers.js in Node (CPU), decoded greedily under their constraint, in both DoM modes;
 * the v2 teacher (best of the trained policy's samples, the fixed designs, the archive agents and
 * in low DoM the direct answer, by mean reward over 3 scoring seeds); the prior and the trained
 * construction policy (greedy); CoT, SC, Reflexion, Debate and CEO alone. A model's text that does
 * not read or validate counts as wrong with 0 tokens.
 *
 *   npx tsx scripts/orchestrator-quality.ts [--tasks 200] [--dtype fp32|q8|q4] [--grpo DIR] [--out FILE]
 *     [--parts baselines,v1,v2,grpo] [--merge a.json,b.json]
 *
 * `--parts` runs only some of the methods (the rest of the table comes from another run on the
 * same tasks); `--merge` prints the tables of stored runs' rows (`--out` files) together.
 */
import { AutoModelForCausalLM, LogitsProcessorList, Tensor, env } from '@huggingface/transformers';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { minimalTrace } from '../src/core/trace-builders.ts';
import type { Design } from '../src/core/trace.ts';
import { simulatedRunners } from '../src/executor/train-runners.ts';
import { tokenizerFromJson } from '../src/lm/index.ts';
import { taskOfMasbench, type MasBenchTask } from '../src/masbench/index.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TOKENS,
  createDesignConstraint,
  designBudget,
  designOfPlan2,
  drawTeacherTasks,
  loadDesignLogitsProcessor,
  planShape,
  readTiny2,
  scoreSeed,
  teacher2Examples,
  tiny2PlanOf,
  tiny2Roles,
  tinyPromptIds,
  tinyRoles,
  tinyVersionOf,
  type DesignRunner,
  type Tiny2Plan,
} from '../src/orchestrator/index.ts';
import {
  BatchedPolicy,
  DEFAULT_POOL,
  constructMany,
  priorCheckpoint,
  type PolicyCheckpoint,
} from '../src/policy/index.ts';
import { axisTable, mainTable, structureTable, type QualityRow } from './orchestrator-quality-table.ts';
import { cachedSimulator, readCheckpoint } from './orchestrator-v2-data.ts';

/** The simulator's fast path (src/executor/train-runners.ts) as a design runner. */
export const simulatorRun: DesignRunner = (design: Design, task: MasBenchTask, seed: number) =>
  simulatedRunners(task, seed).final({
    ...minimalTrace({ query: task.question }),
    task: taskOfMasbench(task),
    design,
  });

/** The simulator seed index every method is scored under (the teacher selects with indices 0..K−1). */
export const EVAL_SEED_INDEX = 1000;

/** What a model wrote for a task in one DoM, with the constraint's counts. */
export interface Decoded {
  text: string;
  steps: number;
  forced: number;
}

export type FolderDecoder = (task: MasBenchTask, dom: 'low' | 'high') => Promise<Decoded>;

/**
 * A model folder loaded with transformers.js (Node, CPU) and decoded greedily under the
 * constraint of its format version: v1 reads the query's last tokens (its report's
 * `maxQueryTokens`) and writes the `tiny` format; v2 reads the whole query and writes `tiny2`
 * within the app's budget (`designBudget`).
 */
export async function folderDecoder(
  folder: string,
  dtype: 'fp32' | 'q8' | 'q4',
): Promise<{ decode: FolderDecoder; version: 1 | 2; dispose: () => Promise<void> }> {
  const dir = resolve(folder);
  const config = JSON.parse(readFileSync(resolve(dir, 'config.json'), 'utf8')) as {
    n_positions: number;
    baton?: { provenance?: { training?: { maxQueryTokens?: number } } };
  };
  const version = tinyVersionOf(config);
  const parsed = tokenizerFromJson(readFileSync(resolve(dir, 'tokenizer.json'), 'utf8'));
  if (!parsed.ok) throw new Error(parsed.message);
  const tok = parsed.tokenizer;
  const end = tok.idOf(TINY_TOKENS.end) as number;
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dirname(dir);
  const model = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype, device: 'cpu' });
  const Processor = await loadDesignLogitsProcessor();
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t) as number);
  const n = config.n_positions;
  const queryTokens = version === 2 ? n - 2 - 64 : (config.baton?.provenance?.training?.maxQueryTokens ?? 64);
  const decode: FolderDecoder = async (task, dom) => {
    const prompt = tinyPromptIds(task.question, dom, (s) => tok.encode(s), queryTokens);
    const left = n - prompt.length;
    const constraint = await createDesignConstraint({
      vocab: tok.tokens,
      vocabType: 'byte_level',
      eosIds: [end],
      specialIds,
      dom,
      maxTokens: left,
      ...(version === 2
        ? { format: 'tiny2' as const, roles: tiny2Roles(DEFAULT_POOL), ...designBudget(left, 'tiny2') }
        : { format: 'tiny' as const, roles: tinyRoles(DEFAULT_POOL) }),
    });
    const list = new LogitsProcessorList();
    list.push(new Processor(constraint));
    const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
    const out = (await model.generate({
      input_ids,
      max_new_tokens: left,
      do_sample: false,
      logits_processor: list,
    })) as InstanceType<typeof Tensor>;
    const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
    const cut = ids.includes(end) ? ids.slice(0, ids.indexOf(end)) : ids;
    return { text: tok.decode(cut), steps: constraint.stats.steps, forced: constraint.stats.forcedTokens };
  };
  return {
    decode,
    version,
    dispose: async () => {
      await model.dispose();
    },
  };
}

const structure = (plan: Tiny2Plan): Pick<QualityRow, 'agents' | 'depth' | 'width' | 'roles'> => ({
  agents: plan.agents.length,
  ...planShape(plan),
  roles: plan.agents.map((a) => a.role),
});

const ARCHIVE: readonly [label: string, role: string][] = [
  ['CoT', 'CoT'],
  ['SC (5)', 'SC'],
  ['Reflexion', 'Reflexion'],
  ['Debate (2 roles, 2 rounds)', 'Debate'],
  ['CEO', 'CEO'],
];

export interface QualityOptions {
  tasks: readonly MasBenchTask[];
  /** The trained construction policy (teacher samples and its own greedy row). */
  trained: PolicyCheckpoint;
  models: Readonly<Record<string, FolderDecoder>>;
  /** Teacher, policies and standalone agents (default true). */
  baselines?: boolean;
  onProgress?: (done: number, total: number) => void;
}

const CPU = { backend: 'cpu', reason: 'bench', adapter: null, ctx: null } as const;

export async function qualityRows(o: QualityOptions): Promise<QualityRow[]> {
  const pool = DEFAULT_POOL;
  const run = cachedSimulator();
  const trained = BatchedPolicy.create(o.trained, CPU, { maxBatch: 128 });
  const prior = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 128 });
  const base = o.baselines ?? true;
  const teacher = base
    ? await teacher2Examples(o.tasks, { pool, policy: trained, run, samples: 8, seeds: 3, maxSteps: 6 })
    : [];
  const greedy = async (policy: BatchedPolicy): Promise<Design[]> => {
    const out: Design[] = [];
    for (let i = 0; i < o.tasks.length; i += policy.maxBatch) {
      const built = await constructMany({
        policy,
        pool,
        greedy: true,
        maxSteps: 6,
        episodes: o.tasks
          .slice(i, i + policy.maxBatch)
          .map((t) => ({ task: taskOfMasbench(t), seed: t.seed })),
      });
      out.push(...built.map((c) => c.design));
    }
    return out;
  };
  const priorDesigns = base ? await greedy(prior) : [];
  const trainedDesigns = base ? await greedy(trained) : [];
  prior.dispose();
  trained.dispose();
  const rows: QualityRow[] = [];
  const score = async (
    method: string,
    task: MasBenchTask,
    plan: Tiny2Plan,
    design: Design,
    extra: Partial<QualityRow> = {},
  ) => {
    const r = await run(design, task, scoreSeed(task, EVAL_SEED_INDEX));
    rows.push({
      method,
      task,
      correct: r.correct === true,
      tokens: r.tokens,
      valid: true,
      ...structure(plan),
      ...extra,
    });
  };
  for (const [i, task] of o.tasks.entries()) {
    const t = teacher[i];
    for (const dom of t ? (['high', 'low'] as const) : []) {
      const s = (t as NonNullable<typeof t>)[dom];
      await score(`teacher (${dom})`, task, s.plan, s.design, {
        branch: s.plan.agents.length === 0 ? 'direct' : dom === 'low' ? 'delegate' : 'mas',
      });
    }
    for (const [label, designs] of (base
      ? [
          ['prior policy (greedy)', priorDesigns],
          ['trained policy (greedy)', trainedDesigns],
        ]
      : []) as [string, Design[]][]) {
      const d = designs[i] as Design;
      await score(label, task, tiny2PlanOf(d, pool), d);
    }
    for (const [label, role] of base ? ARCHIVE : []) {
      const plan: Tiny2Plan = { dom: 'low', agents: [{ role, links: [] }] };
      await score(label, task, plan, designOfPlan2(plan, pool));
    }
    for (const [label, decode] of Object.entries(o.models)) {
      for (const dom of ['high', 'low'] as const) {
        const method = `${label} (${dom})`;
        const d = await decode(task, dom);
        const r = readTiny2(d.text, dom, pool);
        if (!r.ok) {
          rows.push({
            method,
            task,
            correct: false,
            tokens: 0,
            valid: false,
            agents: 0,
            depth: 0,
            width: 0,
            roles: [],
            steps: d.steps,
            forced: d.forced,
          });
          continue;
        }
        await score(method, task, r.plan, r.design, { branch: r.branch, steps: d.steps, forced: d.forced });
      }
    }
    o.onProgress?.(i + 1, o.tasks.length);
  }
  return rows;
}

type StoredRow = Omit<QualityRow, 'task'> & { task: Pick<MasBenchTask, 'id' | 'axis' | 'value'> };

function tables(rows: readonly QualityRow[], head: string, grpo: boolean): string {
  const notes: Record<string, string> = grpo
    ? {}
    : { 'v2 GRPO (high/low)': 'not in this run: pass --grpo <folder> (the GRPO trainer writes it)' };
  const methods = new Set(rows.map((r) => r.method));
  return [
    head,
    '',
    mainTable(rows, methods.has('trained policy (greedy)') ? 'trained policy (greedy)' : null, notes),
    '',
    'Accuracy · tokens per axis:',
    '',
    axisTable(rows),
    '',
    'Structure (valid designs):',
    '',
    structureTable(
      rows,
      [
        'teacher (high)',
        'v2 SFT (high)',
        'v2 GRPO (high)',
        'teacher (low)',
        'v2 SFT (low)',
        'v2 GRPO (low)',
      ].filter((m) => methods.has(m)),
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      tasks: { type: 'string', default: '200' },
      seed: { type: 'string', default: '1' },
      dtype: { type: 'string', default: 'fp32' },
      v1: { type: 'string', default: 'models/baton-orchestrator-tiny' },
      v2: { type: 'string', default: 'models/baton-orchestrator-tiny-v2' },
      grpo: { type: 'string' },
      policy: { type: 'string', default: 'scripts/orchestrator-data/teacher-policy.json' },
      out: { type: 'string', default: 'node_modules/.cache/orchestrator-quality.json' },
      parts: { type: 'string', default: 'baselines,v1,v2,grpo' },
      merge: { type: 'string' },
    },
  });
  if (values.merge) {
    const rows = values.merge
      .split(',')
      .flatMap((f) => JSON.parse(readFileSync(resolve(f), 'utf8')) as StoredRow[]) as unknown as QualityRow[];
    const n = new Set(rows.map((r) => r.task.id)).size;
    process.stdout.write(
      `${tables(
        rows,
        `${n} held-out tasks (test split, values 2–12), simulator seed index ${EVAL_SEED_INDEX}; merged from ${values.merge}.`,
        rows.some((r) => r.method.startsWith('v2 GRPO')),
      )}\n`,
    );
    return;
  }
  const parts = new Set(values.parts.split(',').map((p) => p.trim()));
  const dtype = values.dtype as 'fp32' | 'q8' | 'q4';
  if (!['fp32', 'q8', 'q4'].includes(dtype)) throw new Error('--dtype is fp32, q8 or q4');
  const count = Number(values.tasks);
  if (!Number.isInteger(count) || count < 1) throw new Error('--tasks must be a positive integer');
  const tasks = drawTeacherTasks({
    count,
    baseSeed: Number(values.seed),
    split: 'test',
    values: [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
  });
  const loaded: [string, Awaited<ReturnType<typeof folderDecoder>>][] = [];
  if (parts.has('v1')) loaded.push(['v1', await folderDecoder(values.v1, dtype)]);
  if (parts.has('v2')) loaded.push(['v2 SFT', await folderDecoder(values.v2, dtype)]);
  if (parts.has('grpo') && values.grpo) loaded.push(['v2 GRPO', await folderDecoder(values.grpo, dtype)]);
  const t0 = performance.now();
  const rows = await qualityRows({
    tasks,
    trained: readCheckpoint(values.policy).checkpoint,
    models: Object.fromEntries(loaded.map(([k, m]) => [k, m.decode])),
    baselines: parts.has('baselines'),
    onProgress: (d, n) => {
      if (d % 25 === 0 || d === n)
        process.stderr.write(`${d}/${n} tasks (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
    },
  });
  for (const [, m] of loaded) await m.dispose();
  const head = `${tasks.length} held-out tasks (test split, ${tasks.length / 5} per axis, values 2–12), simulator seed index ${EVAL_SEED_INDEX}, models ${dtype} through transformers.js, constrained, greedy.`;
  process.stdout.write(
    `${tables(rows, head, values.grpo !== undefined)}\n\n(${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
  );
  mkdirSync(dirname(resolve(values.out)), { recursive: true });
  const stored: StoredRow[] = rows.map((r) => ({
    ...r,
    task: { id: r.task.id, axis: r.task.axis, value: r.task.value },
  }));
  writeFileSync(resolve(values.out), JSON.stringify(stored));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
