import type { z } from 'zod';
import { describe } from './errors.ts';
import { fail, ok, type Problem, type Result } from './result.ts';
import { MIGRATIONS, type Migration } from './migrations.ts';
import { TRACE_VERSION, TraceSchema, type Trace } from './trace.ts';

/** Largest serialised trace Baton reads, in characters (UTF-16 code units). */
export const MAX_TRACE_CHARS = 32_000_000;

const FORMAT_RE = /^baton\.trace\/(\d{1,4})$/;

/** Turns zod issues into problems with a dotted path, at most `max` of them. */
export function zodProblems(error: z.ZodError, code: Problem['code'], max = 20): Problem[] {
  const problems = error.issues.slice(0, max).map((issue) => ({
    code,
    path: issue.path.map(String).join('.') || '(root)',
    message: `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`,
  }));
  if (error.issues.length > max) {
    problems.push({ code, path: '(root)', message: `…and ${error.issues.length - max} more problems` });
  }
  return problems;
}

/** Reads the numeric version of a `baton.trace/N` object, or explains why it cannot. */
export function traceVersionOf(raw: unknown): Result<number> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return fail({ code: 'E_TRACE_FORMAT', message: describe('E_TRACE_FORMAT', 'expected a JSON object') });
  }
  const format = (raw as Record<string, unknown>).format;
  const m = typeof format === 'string' ? FORMAT_RE.exec(format) : null;
  if (!m) {
    return fail({
      code: 'E_TRACE_FORMAT',
      message: describe(
        'E_TRACE_FORMAT',
        `expected "format": "baton.trace/<version>", found ${JSON.stringify(format)?.slice(0, 60) ?? 'nothing'}`,
      ),
    });
  }
  return ok(Number(m[1]));
}

/**
 * Brings a raw trace of any supported version up to the current one by applying the numbered
 * migrations in order (N → N+1). Pure; the registry is a parameter so tests can exercise it.
 */
export function migrateTrace(
  raw: unknown,
  migrations: Readonly<Record<number, Migration>> = MIGRATIONS,
  current: number = TRACE_VERSION,
): Result<unknown> {
  const v = traceVersionOf(raw);
  if (!v.ok) return v;
  let version = v.value;
  if (version > current) {
    return fail({
      code: 'E_TRACE_VERSION_NEWER',
      message: describe(
        'E_TRACE_VERSION_NEWER',
        `it is baton.trace/${version}; this Baton reads up to baton.trace/${current}`,
      ),
    });
  }
  let value = raw;
  while (version < current) {
    const step = migrations[version];
    if (!step) {
      return fail({
        code: 'E_TRACE_VERSION_UNKNOWN',
        message: describe('E_TRACE_VERSION_UNKNOWN', `no upgrade from baton.trace/${version}`),
      });
    }
    try {
      value = step(value);
    } catch (e) {
      return fail({
        code: 'E_MIGRATION',
        message: describe(
          'E_MIGRATION',
          `baton.trace/${version} → ${version + 1}: ${e instanceof Error ? e.message : String(e)}`,
        ),
      });
    }
    version += 1;
  }
  return ok(value);
}

/** Validates an untrusted value (already parsed JSON) as a trace of any supported version. */
export function parseTraceValue(raw: unknown): Result<Trace> {
  const migrated = migrateTrace(raw);
  if (!migrated.ok) return migrated;
  const parsed = TraceSchema.safeParse(migrated.value);
  if (!parsed.success) return fail(...zodProblems(parsed.error, 'E_TRACE_SCHEMA'));
  return ok(parsed.data);
}

/** Parses untrusted JSON text as a trace. Never throws. */
export function parseTraceJson(text: string): Result<Trace> {
  if (text.length > MAX_TRACE_CHARS) {
    return fail({
      code: 'E_TOO_LARGE',
      message: describe('E_TOO_LARGE', `${text.length} characters; the limit is ${MAX_TRACE_CHARS}`),
    });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return fail({ code: 'E_JSON', message: describe('E_JSON', e instanceof Error ? e.message : String(e)) });
  }
  return parseTraceValue(raw);
}
