import { z } from 'zod';
import { TraceSchema } from '../core/trace.ts';
import { EVAL_LIMITS, EvalConfigSchema, EvalDocumentSchema, EvalRowSchema } from '../eval/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The evaluation worker's one method: `evaluate` runs `runEvaluation` (src/eval) with the executor's
 * `evalExecutor` off the main thread. Each finished job comes back as progress with its row and its
 * trace (the page keeps both in IndexedDB: the journal a reload resumes from); the answer is the
 * results document without its rows, which the page already holds: 5,000 rows validated again in
 * one message would block the page's main thread for ~100 ms (docs/benchmarks.md, "Evaluation").
 */
export const evalMethods = defineMethods({
  evaluate: {
    input: z.object({
      config: EvalConfigSchema,
      /** Rows a journal already holds: not run again. */
      done: z.array(EvalRowSchema).max(EVAL_LIMITS.rows),
      /** Jobs at once. */
      concurrency: z.number().int().min(1).max(64),
      createdAt: z.iso.datetime(),
    }),
    progress: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('row'), row: EvalRowSchema, trace: TraceSchema }),
      z.object({
        kind: z.literal('progress'),
        total: z.number().int().nonnegative(),
        done: z.number().int().nonnegative(),
        running: z.number().int().nonnegative(),
        tokens: z.number().nonnegative(),
        usd: z.number().nonnegative(),
        perMethod: z.record(
          z.string().max(300),
          z.object({ done: z.number().int(), total: z.number().int() }),
        ),
      }),
    ]),
    output: EvalDocumentSchema.omit({ rows: true }),
  },
});

export type EvalMethods = typeof evalMethods;
