import { z } from 'zod';
import type { Problem } from '../../core/result.ts';
import { describe } from '../../core/errors.ts';

/**
 * The wire format of every worker in `src/workers`, and the method tables workers declare.
 *
 * A worker offers named methods. Each method is declared once, as three zod schemas: what it takes
 * (`input`), what it reports while it works (`progress`; `z.never()` when it reports nothing) and
 * what it answers (`output`). The page and the worker both parse every message with these schemas:
 * a worker message crosses a trust boundary like any other input.
 *
 * Page → worker:  `call` (id, method, input), `cancel` (id).
 * Worker → page:  any number of `progress` (id, progress), then one `done` (id, output) or one
 *                 `error` (id, problem). An error the worker cannot tie to a call has `id: null`.
 */

export interface MethodSpec<
  I extends z.ZodType = z.ZodType,
  P extends z.ZodType = z.ZodType,
  O extends z.ZodType = z.ZodType,
> {
  input: I;
  progress: P;
  output: O;
}

export type MethodTable = Record<string, MethodSpec>;

/** Declares a worker's methods; the identity, there for type inference at the declaration. */
export function defineMethods<const T extends MethodTable>(table: T): T {
  return table;
}

/** What a caller passes (before parsing). */
export type InputOf<M extends MethodSpec> = z.input<M['input']>;
/** What a handler receives (after parsing). */
export type ParsedInputOf<M extends MethodSpec> = z.output<M['input']>;
/** What a handler reports. */
export type ProgressIn<M extends MethodSpec> = z.input<M['progress']>;
/** What a caller's progress callback receives. */
export type ProgressOf<M extends MethodSpec> = z.output<M['progress']>;
/** What a handler returns. */
export type OutputIn<M extends MethodSpec> = z.input<M['output']>;
/** What a caller gets back. */
export type OutputOf<M extends MethodSpec> = z.output<M['output']>;

/** Every way a worker call can fail; the sentences are in the one table, src/core/errors.ts. */
export const RPC_CODES = [
  'E_WORKER_BAD_INPUT',
  'E_WORKER_UNKNOWN_METHOD',
  'E_WORKER_BAD_MESSAGE',
  'E_WORKER_BAD_PROGRESS',
  'E_WORKER_BAD_OUTPUT',
  'E_WORKER_FAILED',
  'E_WORKER_CANCELLED',
  'E_WORKER_CRASHED',
  'E_WORKER_UNAVAILABLE',
  'E_WORKER_STOPPED',
] as const;

export type RpcErrorCode = (typeof RPC_CODES)[number];

/** A worker call's problem: the coded sentence, the detail, and `path` = `<worker>.<method>`. */
export interface RpcProblem extends Problem {
  code: RpcErrorCode;
}

export function rpcProblem(code: RpcErrorCode, path: string, detail?: string): RpcProblem {
  return { code, message: describe(code, detail), path };
}

const MAX_TEXT = 10_000;
const id = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

export const RpcRequestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('call'), id, method: z.string().min(1).max(200), input: z.unknown() }),
  z.object({ kind: z.literal('cancel'), id }),
]);

export const RpcProblemSchema = z.object({
  code: z.enum(RPC_CODES),
  message: z.string().max(MAX_TEXT),
  path: z.string().max(MAX_TEXT).optional(),
});

export const RpcReplySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('progress'), id, progress: z.unknown() }),
  z.object({ kind: z.literal('done'), id, output: z.unknown() }),
  z.object({ kind: z.literal('error'), id: id.nullable(), error: RpcProblemSchema }),
]);

export type RpcRequest = z.infer<typeof RpcRequestSchema>;
export type RpcReply = z.infer<typeof RpcReplySchema>;

/** The call id of a message that failed to parse, when it has a usable one. */
export function idOf(raw: unknown): number | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const parsed = id.safeParse((raw as { id?: unknown }).id);
  return parsed.success ? parsed.data : null;
}

/** A zod error in one line, for a problem's detail. */
export function issuesText(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Any thrown value as text. */
export function thrownText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
