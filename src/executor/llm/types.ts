/**
 * The client's public types: what a call sends (`ChatRequest`), what it returns
 * (`Completion`), per-call options, the client's configuration and the `LlmClient` itself.
 */
import type { Budget } from './budget.ts';
import type { LlmError, LlmResult } from './errors.ts';
import type { PriceTable } from './pricing.ts';
import type { RetryPolicy, Sleep } from './retry.ts';
import type { ChatMessage, Usage } from './usage.ts';

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  topP?: number;
  /** Upper bound on completion tokens; also what the budget reserves for the reply. */
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** Provider-specific body fields, sent as given (e.g. `max_completion_tokens`). */
  extraBody?: Record<string, unknown>;
}

export interface Completion {
  id: string;
  model: string;
  content: string;
  finishReason: string | null;
  usage: Usage;
  /** USD from the price table; undefined when the model has no price there. */
  costUsd: number | undefined;
  /** Attempts made, including the successful one. */
  attempts: number;
  /** Wall time of the whole call including retries and waits, ms. */
  latencyMs: number;
}

export interface RetryEvent {
  /** The attempt that failed (1-based). */
  attempt: number;
  /** Wait before the next attempt, ms. */
  delayMs: number;
  error: LlmError;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout, ms. */
  timeoutMs?: number;
  onRetry?: (event: RetryEvent) => void;
}

export interface StreamOptions extends CallOptions {
  /** Receives each piece of text as it arrives. */
  onDelta?: (text: string) => void;
}

export interface LlmClientConfig {
  /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when non-empty; never returned or logged. */
  apiKey?: string;
  /** Extra request headers (e.g. OpenRouter's HTTP-Referer and X-Title). */
  headers?: Record<string, string>;
  /** Per-attempt timeout, ms. Default 60,000. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Ask for usage in streams via `stream_options.include_usage`. Default true. */
  streamUsage?: boolean;
  /** Largest response body accepted, bytes. Default 8 MiB. */
  maxResponseBytes?: number;
  budget?: Budget;
  prices?: PriceTable;
  fetch?: typeof fetch;
  /** Backoff sleep; tests inject an instant one. */
  sleep?: Sleep;
  /** Uniform [0, 1) source for jitter. */
  random?: () => number;
  /** Clock in ms, for latency and Retry-After dates. */
  now?: () => number;
}

export interface LlmClient {
  complete(request: ChatRequest, options?: CallOptions): Promise<LlmResult<Completion>>;
  stream(request: ChatRequest, options?: StreamOptions): Promise<LlmResult<Completion>>;
  /** Lists model ids; doubles as the "Test connection" check (reachability, CORS, key). */
  listModels(options?: CallOptions): Promise<LlmResult<string[]>>;
}
