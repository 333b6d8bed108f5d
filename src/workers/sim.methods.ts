import { z } from 'zod';
import { AgentParamsSchema, AgentSchema, ConstructionStepSchema, TaskSchema } from '../core/trace.ts';
import { MasBenchTaskSchema } from '../masbench/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The simulator workers' one method (src/workers/sim-pool.ts): `run` takes a batch of runner calls
 * (every call one construction step of the trainer made on the episodes this worker holds) and
 * answers each in order. A worker keeps each episode's runner, and the design it last ran, between
 * batches, so a call carries only what changed:
 *
 * - `tasks`: MasBench tasks this worker has not been sent yet, under a number (`key`); `resetTasks`
 *   empties the table first (the pool's table is bounded; runners keep their own task);
 * - a job's `start`: the runner is new (its task key and sampling seed);
 * - a job's `agents`: indices, below the count of the runner's last design's agents one of those
 *   (the same object on the page), else one of the job's `added` agents after them; `edges` as
 *   `[from, to, from, to, …]`;
 * - `drop`: runners the page no longer holds (collected without a final run).
 *
 * A `final` run is a runner's last call: the worker forgets it afterwards. The worker parses every
 * message; the page parses every answer (src/workers/rpc): a worker is untrusted like any input.
 */

const runnerId = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const MAX_JOBS = 65_536;
const MAX_AGENTS = 5_000;

/** An agent as the policy writes it: `params` left out when it has none (no default filled in). */
const WireAgentSchema = AgentSchema.extend({ params: AgentParamsSchema.optional() });

export const SimJobSchema = z.object({
  runner: runnerId,
  kind: z.enum(['intermediate', 'final']),
  start: z.object({ task: z.number().int().nonnegative(), seed: z.number().int() }).optional(),
  /** The call's task when it is not the runner's own (taskOfMasbench of its MasBench task). */
  task: TaskSchema.optional(),
  dom: z.enum(['low', 'high']),
  thinking: z.string().max(2_000_000).optional(),
  directAnswer: z.string().max(2_000_000).optional(),
  agents: z
    .array(
      z
        .number()
        .int()
        .nonnegative()
        .max(2 * MAX_AGENTS),
    )
    .max(MAX_AGENTS),
  added: z.array(WireAgentSchema).max(MAX_AGENTS),
  edges: z.array(z.string().max(200)).max(100_000),
});
export type SimJob = z.infer<typeof SimJobSchema>;

export const SimBatchSchema = z.object({
  resetTasks: z.boolean(),
  tasks: z.array(z.object({ key: z.number().int().nonnegative(), task: MasBenchTaskSchema })).max(MAX_JOBS),
  drop: z.array(runnerId).max(MAX_JOBS),
  jobs: z.array(SimJobSchema).max(MAX_JOBS),
});
export type SimBatch = z.infer<typeof SimBatchSchema>;

const RunSchema = ConstructionStepSchema.shape.intermediateRun.unwrap();

/** One call's answer: an intermediate step result, a final outcome, or why the call threw. */
export const SimAnswerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('intermediate'),
    answer: z.string().max(2_000_000).nullable(),
    correct: z.boolean().nullable(),
    run: RunSchema,
  }),
  z.object({
    kind: z.literal('final'),
    correct: z.boolean().nullable(),
    tokens: z.number().int().nonnegative(),
  }),
  z.object({ kind: z.literal('error'), message: z.string().max(10_000) }),
]);
export type SimAnswer = z.infer<typeof SimAnswerSchema>;

export const simMethods = defineMethods({
  run: {
    input: SimBatchSchema,
    progress: z.never(),
    output: z.object({ answers: z.array(SimAnswerSchema).max(MAX_JOBS) }),
  },
});
export type SimMethods = typeof simMethods;
