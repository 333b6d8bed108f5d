/**
 * Flag parsing every `baton` command shares: `node:util` parseArgs in strict mode with its
 * message as a usage error, and the checks several commands make the same way (seeds, the
 * compute backend, a choice from a list, positive counts), with one wording each.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { BackendPreference } from '../gpu/index.ts';

export type UsageError = { ok: false; message: string };
type Values = Record<string, string | boolean | undefined>;

/** The flags as values, with `str(name)` for a string flag (undefined when absent). */
export interface Flags {
  ok: true;
  values: Values;
  str: (name: string) => string | undefined;
}

export function readFlags(
  args: string[],
  options: NonNullable<ParseArgsConfig['options']>,
): Flags | UsageError {
  let values: Values;
  try {
    ({ values } = parseArgs({ args, options, allowPositionals: false, strict: true }) as { values: Values });
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === 'string' ? (values[k] as string) : undefined;
  return { ok: true, values, str };
}

const usageError = (message: string): UsageError => ({ ok: false, message });
const isError = (v: unknown): v is UsageError =>
  typeof v === 'object' && v !== null && (v as { ok?: unknown }).ok === false;
export { isError as isUsageError };

/** `--seed`: an integer from 0 to 2³² − 1. */
export function seedFlag(raw: string | undefined, fallback = '0'): number | UsageError {
  const seed = raw ?? fallback;
  if (!/^\d+$/.test(seed) || Number(seed) > 0xffffffff)
    return usageError(`--seed must be an integer from 0 to 4294967295, got "${seed}"`);
  return Number(seed);
}

/** `--backend` of the compute core: auto, wasm, cpu or webgpu. */
export function backendFlag(
  raw: string | undefined,
  fallback: BackendPreference,
): BackendPreference | UsageError {
  const backend = raw ?? fallback;
  if (backend !== 'auto' && backend !== 'wasm' && backend !== 'cpu' && backend !== 'webgpu')
    return usageError(`--backend must be auto, wasm, cpu or webgpu, got "${backend}"`);
  return backend;
}

/** A positive integer flag such as `--n` or `--iterations`. */
export function positiveIntFlag(
  name: string,
  raw: string | undefined,
  fallback: string,
): number | UsageError {
  const v = raw ?? fallback;
  if (!/^\d+$/.test(v) || Number(v) < 1)
    return usageError(`--${name} must be a positive integer, got "${v}"`);
  return Number(v);
}

/** A flag whose value is one of `choices`. */
export function choiceFlag<T extends string>(
  name: string,
  raw: string | undefined,
  choices: readonly T[],
  fallback: T,
): T | UsageError {
  const v = raw ?? fallback;
  if (!(choices as readonly string[]).includes(v))
    return usageError(`--${name} must be one of ${choices.join(', ')}`);
  return v as T;
}
