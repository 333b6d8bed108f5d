import type { Problem } from './result.ts';

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

  // Role pools (src/policy/roles.ts) and the pools kept in this browser (src/store/services/roles.ts).
  E_ROLES_FORMAT: 'This is not a Baton role pool',
  E_ROLES_SCHEMA: 'The role pool breaks a rule',
  E_ROLES_STORAGE: 'Role pools could not be kept in this browser',
  E_ROLES_NOT_FOUND: 'This role pool version is not stored in this browser',
  E_ROLES_STORED: 'A stored role pool is damaged',

  // The library's effects: network, files, storage (src/store/services).
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

  // The construction policy and its runs (src/policy, src/store/services/policy-*.ts).
  E_POLICY_LOAD: 'The policy could not be loaded',
  E_POLICY_FILE: 'The file is not a usable policy checkpoint',
  E_POLICY_STEP: 'The policy step failed',
  E_POLICY_STORAGE: 'Checkpoints could not be kept in this browser',
  E_SIMULATOR: 'The simulator could not run the design',
  E_INTERMEDIATE: 'The partial design gave no intermediate answer',
  E_PROVIDER: 'The provider cannot be used',

  // The Train page (src/store/services/train*.ts).
  E_TRAIN_CONFIG: 'The training settings break a rule',
  E_TRAIN_WORKER: 'The training worker failed',
  E_TRAIN_STORAGE: 'Training snapshots could not be kept in this browser',
  E_TRAIN_STORED: 'The training snapshot saved in this browser is damaged',
  E_TRAIN_FILE: 'The file is not a usable training snapshot',
  E_TRAIN_NOTHING: 'There is no trained policy yet',
  E_TRAIN_LINK: 'The link is not a usable training run',
  E_TRAIN_RERUN: 'The shared run cannot be re-run',
  E_TRAIN_ABLATION: 'The ablation study cannot start',

  // OpenTelemetry and verl interop (src/interop, the OTLP sender in src/executor/llm).
  E_OTLP_SCHEMA: 'The file is not an OTLP/JSON trace export Baton can read',
  E_OTLP_TRACE: 'A trace in the OTLP file could not become a Baton trace',
  E_OTLP_SEND: 'The traces could not be sent to the OTLP endpoint',

  // The evaluation harness (src/eval, src/store/services/eval.ts).
  E_EVAL_CONFIG: 'The evaluation settings are not valid',
  E_EVAL_RUN: 'The evaluation could not run',
  E_EVAL_STORAGE: 'The evaluation journal could not be kept in this browser',
  E_EVAL_FILE: 'The file is not a Baton evaluation',
  E_EVAL_LINK: 'The link is not a usable evaluation',
  E_EVAL_OTLP: 'The evaluation could not be exported as OTLP',

  // The in-tab orchestrator's models (src/orchestrator, src/workers/orchestrator.*, `baton orchestrate`).
  E_MODEL_MANIFEST: 'The model manifest breaks a rule',
  E_MODEL_SPEC: 'This is not a model Baton can load',
  E_MODEL_NOT_FOUND: 'A model file is not where the model says it is',
  E_MODEL_NETWORK: 'A model file could not be downloaded',
  E_MODEL_FILE: 'A model file is corrupt or truncated',
  E_MODEL_TOKENIZER: 'The tokenizer does not match the model',
  E_MODEL_DEVICE: 'The model cannot run on this device',
  E_MODEL_NOT_LOADED: 'No model is loaded',
  E_MODEL_BUSY: 'The orchestrator is already working',
  E_MODEL_GENERATE: 'The model failed while writing',
  E_MODEL_OUTPUT: 'The model wrote no valid design',
  E_MODEL_CACHE: 'The model cache could not be changed',

  // The tiny model's files (src/lm/hf-files.ts, src/lm/onnx/check.ts).
  E_MODEL_CONFIG: "The model's config.json is not one Baton can use",
  E_MODEL_ONNX: 'The model file is not a usable ONNX model',

  // Worker calls (src/workers/rpc).
  E_WORKER_BAD_INPUT: 'The request does not match what the worker method takes',
  E_WORKER_UNKNOWN_METHOD: 'The worker has no such method',
  E_WORKER_BAD_MESSAGE: 'A message between the page and the worker is malformed',
  E_WORKER_BAD_PROGRESS: 'The worker reported progress that does not match the method',
  E_WORKER_BAD_OUTPUT: 'The worker answered with something that does not match the method',
  E_WORKER_FAILED: 'The worker method failed',
  E_WORKER_CANCELLED: 'The request was cancelled',
  E_WORKER_CRASHED: 'The worker stopped unexpectedly',
  E_WORKER_UNAVAILABLE: 'The worker could not be started',
  E_WORKER_STOPPED: 'The worker was shut down before it answered',
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** `E_CODE: sentence — detail`, the one format used in the UI, the CLI and logs. */
export function describe(code: ErrorCode, detail?: string): string {
  return detail ? `${ERRORS[code]}: ${detail}` : `${ERRORS[code]}.`;
}

/** The problem for a code, its message written by `describe`. */
export function problemOf(code: ErrorCode, detail?: string): Problem {
  return { code, message: describe(code, detail) };
}
