/**
 * The MASBench task record and its validator. Tasks are read back from JSONL files, which are
 * untrusted, so everything here is bounded and cross-checked: the graph must be a DAG, the answers
 * must be the asked sub-tasks' answers, and the graph must measure the axis value it claims.
 */
import { z } from 'zod';
import { graphProblems, measureAxes } from './measure.ts';

export const MASBENCH_FORMAT = 'baton.masbench/1';

export const AXES = ['depth', 'horizon', 'breadth', 'parallel', 'robustness'] as const;
export const AxisSchema = z.enum(AXES);
export type Axis = z.infer<typeof AxisSchema>;

/** Axis values the generator accepts, as in MASBench. */
export const MIN_AXIS_VALUE = 2;
export const MAX_AXIS_VALUE = 12;

export const SPLITS = ['train', 'test'] as const;
export type Split = (typeof SPLITS)[number];

const IdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'ids use letters, digits and _ . : - only');

export const SubtaskSchema = z.object({
  id: IdSchema,
  /** Self-contained once the answers of `deps` are known. */
  question: z.string().min(1).max(4_000),
  deps: z.array(IdSchema).max(64),
  /** Ground truth, an integer in [0, modulus). */
  answer: z.number().int(),
  /** A misleading hint shown with this sub-task's sentence in the task question (robustness axis). */
  note: z.string().min(1).max(1_000).optional(),
});
export type Subtask = z.infer<typeof SubtaskSchema>;

export const MasBenchTaskSchema = z
  .object({
    format: z.literal(MASBENCH_FORMAT),
    id: z.string().min(1).max(128),
    /** The full text a solver gets, misleading notes included. */
    question: z.string().min(1).max(100_000),
    subtasks: z.array(SubtaskSchema).min(1).max(500),
    /** Sub-tasks whose answers the question asks for, in the order asked. */
    asks: z.array(IdSchema).min(1).max(64),
    /** `answers[i]` is the answer of `asks[i]`. */
    answers: z.array(z.number().int()).min(1).max(64),
    axis: AxisSchema,
    value: z.number().int().min(1).max(64),
    seed: z.number().int().min(0).max(0xffffffff),
    split: z.enum(SPLITS),
    /** All arithmetic in the task is modulo this number (23, as in iGSM). */
    modulus: z.number().int().min(2).max(1_000),
  })
  .superRefine((task, ctx) => {
    const problems = graphProblems(task);
    for (const p of problems) ctx.addIssue({ code: 'custom', message: p.message, path: p.path });
    if (problems.length > 0) return;
    if (task.answers.length !== task.asks.length) {
      ctx.addIssue({
        code: 'custom',
        message: `${task.answers.length} answers for ${task.asks.length} asked sub-tasks`,
        path: ['answers'],
      });
    }
    const byId = new Map(task.subtasks.map((s) => [s.id, s] as const));
    task.asks.forEach((id, i) => {
      const expected = byId.get(id)?.answer;
      const given = task.answers[i];
      if (given !== undefined && given !== expected) {
        ctx.addIssue({
          code: 'custom',
          message: `answers[${i}] is ${given} but sub-task "${id}" has answer ${expected}`,
          path: ['answers', i],
        });
      }
    });
    task.subtasks.forEach((s, i) => {
      if (s.answer < 0 || s.answer >= task.modulus) {
        ctx.addIssue({
          code: 'custom',
          message: `sub-task "${s.id}" has answer ${s.answer}, outside 0..${task.modulus - 1}`,
          path: ['subtasks', i, 'answer'],
        });
      }
    });
    const measured = measureAxes(task)[task.axis];
    if (measured !== task.value) {
      ctx.addIssue({
        code: 'custom',
        message: `the task claims ${task.axis} ${task.value} but its graph measures ${measured}`,
        path: ['value'],
      });
    }
  });

export type MasBenchTask = z.infer<typeof MasBenchTaskSchema>;
