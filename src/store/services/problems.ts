import { problemOf, type ErrorCode } from '../../core/errors.ts';
import type { Problem } from '../../core/result.ts';

/** Codes the library services (network, files, storage) raise; their sentences are in core/errors.ts. */
export type ServiceErrorCode = Extract<
  ErrorCode,
  | 'E_FETCH_URL'
  | 'E_FETCH_NETWORK'
  | 'E_FETCH_HTTP'
  | 'E_FETCH_TIMEOUT'
  | 'E_FETCH_TOO_LARGE'
  | 'E_FILE_READ'
  | 'E_FILE_TOO_LARGE'
  | 'E_STORAGE'
  | 'E_NOT_FOUND'
  | 'E_EXAMPLES'
>;

/** `sentence: detail`, the format of `describe()`. */
export function serviceProblem(code: ServiceErrorCode, detail?: string): Problem {
  return problemOf(code, detail);
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
