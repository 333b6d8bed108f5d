import type { Problem } from '../../core/result.ts';

/**
 * Errors raised by the library services (network, files, storage). They sit beside the services
 * rather than in core/errors.ts because only effects produce them; the message format matches
 * `describe()`: `sentence: detail`.
 */
export const SERVICE_ERRORS = {
  E_FETCH_URL: 'The address is not a URL Baton can fetch',
  E_FETCH_NETWORK: 'The file could not be fetched',
  E_FETCH_HTTP: 'The server refused the request',
  E_FETCH_TIMEOUT: 'The server took too long to answer',
  E_FETCH_TOO_LARGE: 'The file is larger than Baton accepts',
  E_FILE_READ: 'The file could not be read',
  E_FILE_TOO_LARGE: 'The file is larger than Baton accepts',
  E_STORAGE: 'Recent traces could not be saved in this browser',
  E_NOT_FOUND: 'This trace is not open and not among the recent traces',
  E_EXAMPLES: 'The bundled examples could not be loaded',
} as const;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

export function serviceProblem(code: ServiceErrorCode, detail?: string): Problem {
  return { code, message: detail ? `${SERVICE_ERRORS[code]}: ${detail}` : `${SERVICE_ERRORS[code]}.` };
}

export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
