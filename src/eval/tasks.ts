/**
 * Task sets: generated MASBench cells (axes × values × count, split by seed), a user's JSONL
 * (`{ "query", "answer", "checker"? }` per line) and the tasks of traces. Each becomes an
 * `EvalTask`: the trace task to run, and the MASBench task when there is one (the simulator can
 * only run generated tasks).
 */
import { z } from 'zod';
import {
  AXES,
  generateTask,
  splitForSeed,
  taskOfMasbench,
  taskSeed,
  type Axis,
  type MasBenchTask,
} from '../masbench/index.ts';
import type { Task, Trace } from '../core/trace.ts';
import { hashString } from '../core/rng.ts';
import type { AxisValues, TaskSet } from './schema.ts';

/** How a JSONL task's answer is checked (src/answers `checkAnswer` modes). */
export const CHECKERS = ['auto', 'math', 'multi', 'choice', 'exact', 'f1'] as const;
export type Checker = (typeof CHECKERS)[number];

export interface EvalTask {
  /** Unique within the set: the MASBench task id, the JSONL line's id, or the trace's task. */
  id: string;
  task: Task;
  masbench: MasBenchTask | null;
  axis: Axis | null;
  value: number | null;
  /** Default `auto` (the executor's own grading). */
  checker: Checker;
}

/** Indices tried per cell before giving up on filling a split (a split is ~1/5 or ~4/5 of seeds). */
const MAX_SEED_TRIES = 1_000_000;

/** `n` tasks per axis value; task seeds `taskSeed(seed, i)` for the indices whose seed is in the split. */
export function masbenchTasks(set: Extract<TaskSet, { kind: 'masbench' }>): EvalTask[] {
  const out: EvalTask[] = [];
  for (const { axis, values } of set.axes) {
    for (const value of values) {
      let taken = 0;
      for (let i = 0; taken < set.n && i < MAX_SEED_TRIES; i++) {
        const seed = taskSeed(set.seed, i);
        if (set.split !== 'all' && splitForSeed(seed) !== set.split) continue;
        const t = generateTask({ axis, value, seed });
        out.push({ id: t.id, task: taskOfMasbench(t), masbench: t, axis, value, checker: 'auto' });
        taken += 1;
      }
    }
  }
  return out;
}

/**
 * `depth:2,6,robustness:3` → [{ depth, [2, 6] }, { robustness, [3] }]: a word with a colon starts
 * an axis, bare numbers add values to the last one.
 */
export function parseAxes(text: string): { ok: true; axes: AxisValues[] } | { ok: false; message: string } {
  const axes: AxisValues[] = [];
  for (const raw of text.split(',').map((w) => w.trim())) {
    if (raw === '') continue;
    const m = /^([a-z]+):(\d+)$/.exec(raw);
    let valueText = raw;
    if (m) {
      const axis = m[1] as string;
      if (!(AXES as readonly string[]).includes(axis))
        return { ok: false, message: `unknown axis "${axis}"; use ${AXES.join(', ')}` };
      if (axes.some((a) => a.axis === axis)) return { ok: false, message: `axis "${axis}" is given twice` };
      axes.push({ axis: axis as Axis, values: [] });
      valueText = m[2] as string;
    } else if (!/^\d+$/.test(raw)) {
      return { ok: false, message: `"${raw}" is neither axis:value nor a value` };
    }
    const last = axes[axes.length - 1];
    if (!last) return { ok: false, message: `value ${raw} comes before any axis (write axis:value first)` };
    const value = Number(valueText);
    if (value < 2 || value > 12)
      return { ok: false, message: `${last.axis} value ${value} is outside 2..12` };
    if (last.values.includes(value))
      return { ok: false, message: `${last.axis} value ${value} is given twice` };
    last.values.push(value);
  }
  if (axes.length === 0) return { ok: false, message: 'no axes given' };
  return { ok: true, axes };
}

const JsonlTaskSchema = z.object({
  id: z.string().min(1).max(200).optional(),
  query: z.string().min(1).max(200_000),
  answer: z.union([
    z.string().max(10_000),
    z.number().finite(),
    z
      .array(z.union([z.string().max(10_000), z.number().finite()]))
      .min(1)
      .max(64),
  ]),
  checker: z.enum(CHECKERS).optional(),
});

/** Longest JSONL line read, characters. */
export const MAX_JSONL_LINE = 1_000_000;

/** A user's JSONL task file; bad lines are reported with their number, good ones kept. */
export function parseTaskJsonl(text: string, name: string): { tasks: EvalTask[]; problems: string[] } {
  const tasks: EvalTask[] = [];
  const problems: string[] = [];
  const ids = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = i + 1;
    if (raw.length > MAX_JSONL_LINE) {
      problems.push(`line ${line}: longer than ${MAX_JSONL_LINE} characters`);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      problems.push(`line ${line}: not JSON (${e instanceof Error ? e.message : String(e)})`);
      return;
    }
    const p = JsonlTaskSchema.safeParse(value);
    if (!p.success) {
      problems.push(
        `line ${line}: ${p.error.issues
          .slice(0, 3)
          .map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`)
          .join('; ')}`,
      );
      return;
    }
    const id = p.data.id ?? `${name}-${line}`;
    if (ids.has(id)) {
      problems.push(`line ${line}: id "${id}" is used twice`);
      return;
    }
    ids.add(id);
    const answers = Array.isArray(p.data.answer) ? p.data.answer.map(String) : [String(p.data.answer)];
    tasks.push({
      id,
      task: {
        query: p.data.query,
        groundTruth: answers.join(', '),
        ...(answers.length > 1 ? { groundTruths: answers } : {}),
        source: { kind: 'dataset', name: name.slice(0, 200), item: id },
      },
      masbench: null,
      axis: null,
      value: null,
      checker: p.data.checker ?? 'auto',
    });
  });
  return { tasks, problems };
}

const MASBENCH_ID = /^masbench-([a-z]+)-(\d+)-(\d+)$/;

/** The generated task behind a MASBench task id, when it regenerates to the same question. */
function regenerate(task: Task): MasBenchTask | null {
  if (task.source.kind !== 'masbench' || task.source.taskId === undefined) return null;
  const m = MASBENCH_ID.exec(task.source.taskId);
  if (!m || !(AXES as readonly string[]).includes(m[1] as string)) return null;
  const value = Number(m[2]);
  const seed = Number(m[3]);
  if (value < 2 || value > 12 || seed > 0xffffffff) return null;
  const t = generateTask({ axis: m[1] as Axis, value, seed });
  return t.question === task.query ? t : null;
}

/** The distinct tasks of some traces (by query and truth); MASBench ones regenerate for the simulator. */
export function tasksOfTraces(traces: readonly Trace[]): EvalTask[] {
  const out: EvalTask[] = [];
  const seen = new Set<string>();
  for (const tr of traces) {
    const key = `${tr.task.query}\u0001${tr.task.groundTruth ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const masbench = regenerate(tr.task);
    const src = tr.task.source;
    out.push({
      id: masbench?.id ?? `trace-${hashString(key).toString(36)}`,
      task: { ...tr.task },
      masbench,
      axis: src.kind === 'masbench' ? src.axis : null,
      value: src.kind === 'masbench' ? src.value : null,
      checker: 'auto',
    });
  }
  return out;
}
