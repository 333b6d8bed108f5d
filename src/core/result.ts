/**
 * A value or a list of problems. Parsers at trust boundaries return this instead of throwing, so
 * callers must look at the problems and show them.
 */
export type Result<T, E = Problem> = { ok: true; value: T; warnings: Problem[] } | { ok: false; errors: E[] };

/** One thing that is wrong with an input, said so a person understands it. */
export interface Problem {
  /** Stable code from `src/core/errors.ts`, e.g. `E_TRACE_SCHEMA`. */
  code: string;
  message: string;
  /** Where in the input, e.g. `execution.events[3].t` or `line 12`. */
  path?: string;
}

export const ok = <T>(value: T, warnings: Problem[] = []): Result<T, never> => ({
  ok: true,
  value,
  warnings,
});
export const fail = (...errors: Problem[]): { ok: false; errors: Problem[] } => ({ ok: false, errors });
