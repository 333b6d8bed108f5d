import { z } from 'zod';
import { TraceSchema } from '../core/trace.ts';
import { EVAL_LIMITS, EvalConfigSchema, EvalDocumentSchema, EvalRowSchema } from '../eval/index.ts';
import { PolicyCheckpointSchema } from '../policy/index.ts';
import { defineMethods } from './rpc/protocol.ts';

/**
 * The provider an evaluation runs on, as the call carries it: the Settings page's endpoint, model,
 * prices and key. The key travels in this call only: the worker hands it to the client it builds
 * and to the executor as a secret (removed from every trace, answer and problem), and nothing the
 * worker sends back holds it.
 */
export const EvalProviderSchema = z.object({
  provider: z.string().min(1).max(300),
  baseUrl: z.string().min(1).max(2000),
  model: z.string().min(1).max(300),
  /** '' for none (local servers). */
  apiKey: z.string().max(4096),
  prices: z
    .record(
      z.string().max(300),
      z.object({ inputPerMTok: z.number().nonnegative(), outputPerMTok: z.number().nonnegative() }),
    )
    .optional(),
});
export type EvalProvider = z.infer<typeof EvalProviderSchema>;

/**
 * The evaluation worker's one method: `evaluate` runs `runEvaluation` (src/eval) with the executor's
 * `evalExecutor` off the main thread, on the simulator or on `provider`. Each finished job comes
 * back as progress with its row and its trace (the page keeps both in IndexedDB: the journal a
 * reload resumes from); the answer is the results document without its rows, which the page
 * already holds: 5,000 rows validated again in one message would block the page's main thread for
 * ~100 ms (docs/benchmarks.md, "Evaluation").
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
      /** Required when `config.backend` is `remote`; its provider, base URL and model must match. */
      provider: EvalProviderSchema.optional(),
      /** Agents running at once within one job (default 4). */
      agentConcurrency: z.number().int().min(1).max(64).optional(),
      /**
       * The saved checkpoints the config's `policy:<name>` methods name (the page's Build/Train
       * checkpoints), by name; `prior` and `random:S` need none.
       */
      checkpoints: z.record(z.string().min(1).max(200), PolicyCheckpointSchema).optional(),
      /** Repair turns an `orchestrator:provider` method's design gets (default 2). */
      repairTurns: z.number().int().min(0).max(10).optional(),
      /**
       * The page's base URL, where this build serves `models/` and onnxruntime-web's files: an
       * in-tab orchestrator method (`orchestrator:tiny`) loads its model from there.
       */
      modelsBaseUrl: z
        .url({ protocol: /^https?$/ })
        .max(2000)
        .optional(),
      /** What an `orchestrator:provider` method's model is asked to write (default xml). */
      designOutput: z.enum(['xml', 'json-schema', 'auto']).optional(),
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
