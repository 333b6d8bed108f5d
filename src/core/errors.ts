/**
 * Every error code Baton shows, with the sentence a person reads. One table, so messages stay
 * consistent and tests can assert on codes rather than wording.
 */
export const ERRORS = {
  E_JSON: 'The file is not valid JSON',
  E_TOO_LARGE: 'The input is larger than Baton accepts',
  E_TRACE_FORMAT: 'This is not a Baton trace',
  E_TRACE_VERSION_NEWER: 'This trace was written by a newer version of Baton',
  E_TRACE_VERSION_UNKNOWN: 'This trace format version is not supported',
  E_TRACE_SCHEMA: 'The trace does not match the baton.trace schema',
  E_MIGRATION: 'The trace could not be upgraded to the current format',
  E_IMPORT_UNKNOWN: 'Baton does not recognise this file',
  E_IMPORT_ITEM: 'An item in the file could not be imported',
  E_LINK: 'The share link is not valid',
  E_DESIGN_PARSE: 'The design could not be read',
  E_DESIGN_INVALID: 'The design breaks a rule',
  E_POLICY_LOAD: 'The policy could not be loaded',
  E_POLICY_FILE: 'The file is not a usable policy checkpoint',
  E_POLICY_STEP: 'The policy step failed',
  E_POLICY_STORAGE: 'Checkpoints could not be kept in this browser',
  E_SIMULATOR: 'The simulator could not run the design',
  E_INTERMEDIATE: 'The partial design gave no intermediate answer',
  E_PROVIDER: 'The provider cannot be used',
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** `E_CODE: sentence — detail`, the one format used in the UI, the CLI and logs. */
export function describe(code: ErrorCode, detail?: string): string {
  return detail ? `${ERRORS[code]}: ${detail}` : `${ERRORS[code]}.`;
}
