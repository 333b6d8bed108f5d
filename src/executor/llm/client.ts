/**
 * OpenAI-compatible chat-completions client over `fetch`, for calls made from the browser
 * (or Node, in tests). It never throws for a failed call: every outcome is an
 * {@link LlmResult}, and every error is redacted so the API key cannot leak through it.
 *
 * Retries: 429, 408, 409, 5xx and network errors are retried up to `retry.maxAttempts`
 * times, waiting for Retry-After when the server sends one (and it is readable: in a browser
 * only if the provider exposes it via CORS), else full-jitter exponential backoff.
 *
 * Streams: a stream that breaks before any text reached `onDelta` is retried like any
 * network error (the caller has seen nothing, so a fresh attempt is invisible). Once text has
 * been delivered the call is not retried, because a new attempt would produce a different
 * text after the part already shown; the error carries that text as `partial`.
 *
 * Timeouts: `timeoutMs` bounds each attempt until the whole body has arrived; for streams it
 * is an idle timeout, restarted by every chunk received, so long generations are not cut.
 */
import type { Budget, Reservation } from './budget.ts';
import {
  describeStatus,
  fail,
  ok,
  redactSecrets,
  type LlmError,
  type LlmResult,
  type PartialOutput,
} from './errors.ts';
import { DEFAULT_PRICES, costOf, type PriceTable } from './pricing.ts';
import { normalizeBaseUrl } from './providers.ts';
import {
  DEFAULT_RETRY_POLICY,
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  realSleep,
  type RetryPolicy,
  type Sleep,
} from './retry.ts';
import {
  ChatCompletionChunkWire,
  ChatCompletionWire,
  ErrorBodyWire,
  ModelListWire,
  describeIssues,
  type UsageWire,
} from './schemas.ts';
import { SseParser, type SseEvent } from './sse.ts';
import {
  estimatePromptTokens,
  estimateTokens,
  estimatedUsage,
  type ChatMessage,
  type Usage,
} from './usage.ts';

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

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Error bodies are only read for a message; more than this is not useful, bytes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;
/** Provider error messages are shown in the UI; longer ones are cut, characters. */
const MAX_PROVIDER_MESSAGE_CHARS = 300;

/** What one attempt produced. `spentTokens` estimates tokens a failed attempt may be billed. */
type AttemptResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: LlmError; retryable: boolean; retryAfterMs?: number; spentTokens?: number };
type Failure = Extract<AttemptResult<never>, { ok: false }>;

/** One attempt's abort controller, linked to the caller's signal, with a restartable timer. */
class AttemptControl {
  readonly controller = new AbortController();
  timedOut = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onUserAbort = (): void => this.controller.abort();

  constructor(
    private readonly timeoutMs: number,
    private readonly userSignal: AbortSignal | undefined,
  ) {
    userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.touch();
  }

  get userAborted(): boolean {
    return this.userSignal?.aborted ?? false;
  }

  /** Restarts the timeout; called when bytes arrive on a stream. */
  touch(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${err.message} (${code})` : err.message;
}

function usageFromWire(wire: UsageWire): Usage {
  return {
    promptTokens: wire.prompt_tokens,
    completionTokens: wire.completion_tokens,
    totalTokens: wire.total_tokens ?? wire.prompt_tokens + wire.completion_tokens,
    estimated: false,
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

type ReadOutcome =
  { ok: true; text: string } | { ok: false; tooLarge: true } | { ok: false; thrown: unknown };

/** Reads a whole body as UTF-8, giving up past `limit` bytes. */
async function readLimited(response: Response, limit: number): Promise<ReadOutcome> {
  if (!response.body) return { ok: true, text: '' };
  const reader = response.body.getReader();
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > limit) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, tooLarge: true };
      }
      text += decoder.decode(value, { stream: true });
    }
    return { ok: true, text: text + decoder.decode() };
  } catch (thrown) {
    return { ok: false, thrown };
  }
}

export function createLlmClient(config: LlmClientConfig): LlmClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
  const fetchImpl: typeof fetch = config.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const sleep = config.sleep ?? realSleep;
  const random = config.random ?? Math.random;
  const now = config.now ?? (() => Date.now());
  const prices = config.prices ?? DEFAULT_PRICES;
  const maxBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const secrets = config.apiKey ? [config.apiKey] : [];
  const base = normalizeBaseUrl(config.baseUrl);

  const headers = (accept: string): Record<string, string> => {
    const h: Record<string, string> = { ...config.headers, accept };
    if (config.apiKey) h.authorization = `Bearer ${config.apiKey}`;
    return h;
  };

  /** Classifies a rejected fetch or body read: the caller's abort, our timeout, or the network. */
  const thrownError = (err: unknown, control: AttemptControl, url: string, timeoutMs: number): Failure => {
    if (control.userAborted) {
      return {
        ok: false,
        retryable: false,
        error: { kind: 'aborted', attempts: 0, message: 'The call was cancelled.' },
      };
    }
    if (control.timedOut) {
      return {
        ok: false,
        retryable: policy.retryOnTimeout,
        error: {
          kind: 'timeout',
          timeoutMs,
          attempts: 0,
          message: `No response from ${hostOf(url)} within ${(timeoutMs / 1000).toFixed(1)} s.`,
        },
      };
    }
    return {
      ok: false,
      retryable: true,
      error: {
        kind: 'network',
        attempts: 0,
        message: `Could not reach ${hostOf(url)} or the connection broke (${causeText(err)}). Check the base URL, that the server is running, and that it allows requests from this page (CORS).`,
      },
    };
  };

  /** Turns a non-2xx response into an error, reading the provider's message if it sent one. */
  const httpError = async (response: Response): Promise<AttemptResult<never>> => {
    const read = await readLimited(response, MAX_ERROR_BODY_BYTES);
    let providerMessage: string | undefined;
    if (read.ok && read.text.length > 0) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(read.text);
      } catch {
        parsed = undefined;
      }
      const body = ErrorBodyWire.safeParse(parsed);
      if (body.success) {
        const e = body.data.error;
        providerMessage = shorten(typeof e === 'string' ? e : e.message, MAX_PROVIDER_MESSAGE_CHARS);
      }
    }
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
    const error: LlmError = {
      kind: 'http',
      status: response.status,
      attempts: 0,
      message:
        describeStatus(response.status) + (providerMessage ? ` The server said: "${providerMessage}"` : ''),
      ...(providerMessage !== undefined ? { providerMessage } : {}),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
    return {
      ok: false,
      error,
      retryable: isRetryableStatus(response.status),
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  };

  const invalid = (
    message: string,
    issues: string[] = [],
    partial?: PartialOutput,
  ): AttemptResult<never> => ({
    ok: false,
    retryable: false,
    error: { kind: 'invalid-response', attempts: 0, message, issues, ...(partial ? { partial } : {}) },
  });

  /** Runs attempts until success, a non-retryable error, exhaustion or cancellation. */
  const withRetries = async <T>(
    options: CallOptions,
    attempt: (control: AttemptControl, timeoutMs: number) => Promise<AttemptResult<T>>,
  ): Promise<{ result: LlmResult<T>; attempts: number; spentTokens: number }> => {
    const timeoutMs = options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let spentTokens = 0;
    for (let n = 1; ; n += 1) {
      if (options.signal?.aborted) {
        return {
          result: fail({ kind: 'aborted', attempts: n - 1, message: 'The call was cancelled.' }),
          attempts: n - 1,
          spentTokens,
        };
      }
      const control = new AttemptControl(timeoutMs, options.signal);
      let outcome: AttemptResult<T>;
      try {
        outcome = await attempt(control, timeoutMs);
      } finally {
        control.dispose();
      }
      if (outcome.ok) return { result: ok(outcome.value), attempts: n, spentTokens };
      spentTokens += outcome.spentTokens ?? 0;
      const error: LlmError = { ...outcome.error, attempts: n };
      const exhausted = n >= policy.maxAttempts;
      if (!outcome.retryable || exhausted) {
        if (outcome.retryable && n > 1) error.message += ` Gave up after ${n} attempts.`;
        return { result: fail(error), attempts: n, spentTokens };
      }
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) {
        error.message += ` The server asked to wait ${Math.ceil(outcome.retryAfterMs / 1000)} s, longer than the ${Math.round(policy.maxRetryAfterMs / 1000)} s this client waits.`;
        return { result: fail(error), attempts: n, spentTokens };
      }
      const delayMs = outcome.retryAfterMs ?? backoffDelay(n - 1, policy, random);
      options.onRetry?.(redactSecrets({ attempt: n, delayMs, error }, secrets));
      await sleep(delayMs, options.signal);
    }
  };

  const buildBody = (request: ChatRequest, stream: boolean): string =>
    JSON.stringify({
      model: request.model,
      messages: request.messages,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.topP !== undefined ? { top_p: request.topP } : {}),
      ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
      ...(request.stop !== undefined ? { stop: request.stop } : {}),
      ...(request.seed !== undefined ? { seed: request.seed } : {}),
      ...(stream ? { stream: true } : {}),
      ...(stream && (config.streamUsage ?? true) ? { stream_options: { include_usage: true } } : {}),
      ...request.extraBody,
    });

  const completionFromWire = (
    text: string,
    request: ChatRequest,
  ): AttemptResult<Omit<Completion, 'attempts' | 'latencyMs' | 'costUsd'>> => {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return invalid(`The server's reply is not valid JSON (starts with "${shorten(text, 60)}").`);
    }
    const parsed = ChatCompletionWire.safeParse(json);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error);
      return invalid(`The server's reply is not a chat completion: ${issues.join('; ')}.`, issues);
    }
    const wire = parsed.data;
    const choice = wire.choices[0];
    const content = choice?.message.content ?? '';
    return {
      ok: true,
      value: {
        id: wire.id,
        model: wire.model,
        content,
        finishReason: choice?.finish_reason ?? null,
        usage: wire.usage ? usageFromWire(wire.usage) : estimatedUsage(request.messages, content),
      },
    };
  };

  /** Reserves budget, runs the call with retries, settles the budget, redacts the result. */
  const call = async (
    request: ChatRequest,
    options: CallOptions,
    attempt: (
      url: string,
      control: AttemptControl,
      timeoutMs: number,
    ) => Promise<AttemptResult<Omit<Completion, 'attempts' | 'latencyMs' | 'costUsd'>>>,
  ): Promise<LlmResult<Completion>> => {
    const started = now();
    if (!base.ok)
      return fail(redactSecrets({ kind: 'network', attempts: 0, message: base.message }, secrets));
    const url = `${base.url}/chat/completions`;
    const promptEstimate = estimatePromptTokens(request.messages);
    let reservation: Reservation | undefined;
    const budget = config.budget;
    if (budget) {
      const completionCap = request.maxTokens ?? budget.defaultCompletionTokens;
      const reserved = budget.reserve(
        {
          tokens: promptEstimate + completionCap,
          usd: costOf(
            { promptTokens: promptEstimate, completionTokens: completionCap },
            request.model,
            prices,
          ),
        },
        request.model,
      );
      if (!reserved.ok) return fail(redactSecrets(reserved.error, secrets));
      reservation = reserved.reservation;
    }

    const { result, attempts, spentTokens } = await withRetries(options, (control, timeoutMs) =>
      attempt(url, control, timeoutMs),
    );

    if (result.ok) {
      const value = result.value;
      const costUsd = costOf(value.usage, value.model, prices) ?? costOf(value.usage, request.model, prices);
      if (budget && reservation) {
        const wasted = { promptTokens: 0, completionTokens: spentTokens };
        budget.commit(reservation, {
          tokens: value.usage.totalTokens + spentTokens,
          usd: (costUsd ?? 0) + (costOf(wasted, request.model, prices) ?? 0),
        });
      }
      return ok(redactSecrets({ ...value, costUsd, attempts, latencyMs: now() - started }, secrets));
    }
    if (budget && reservation) {
      const partial = result.error.partial;
      const used = {
        promptTokens: partial ? promptEstimate : 0,
        completionTokens: spentTokens + (partial?.completionTokensEstimate ?? 0),
      };
      const tokens = used.promptTokens + used.completionTokens;
      if (tokens > 0) budget.commit(reservation, { tokens, usd: costOf(used, request.model, prices) });
      else budget.release(reservation);
    }
    return fail(redactSecrets(result.error, secrets));
  };

  const complete = (request: ChatRequest, options: CallOptions = {}): Promise<LlmResult<Completion>> =>
    call(request, options, async (url, control, timeoutMs) => {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: { ...headers('application/json'), 'content-type': 'application/json' },
          body: buildBody(request, false),
          signal: control.controller.signal,
        });
      } catch (err) {
        return thrownError(err, control, url, timeoutMs);
      }
      if (!response.ok) return httpError(response);
      const read = await readLimited(response, maxBytes);
      if (!read.ok) {
        if ('tooLarge' in read) return invalid(`The server's reply is larger than ${maxBytes} bytes.`);
        return thrownError(read.thrown, control, url, timeoutMs);
      }
      return completionFromWire(read.text, request);
    });

  const stream = (request: ChatRequest, options: StreamOptions = {}): Promise<LlmResult<Completion>> =>
    call(request, options, async (url, control, timeoutMs) => {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: { ...headers('text/event-stream'), 'content-type': 'application/json' },
          body: buildBody(request, true),
          signal: control.controller.signal,
        });
      } catch (err) {
        return thrownError(err, control, url, timeoutMs);
      }
      if (!response.ok) return httpError(response);

      // Some servers ignore `stream: true` and answer with one JSON body: accept it.
      if ((response.headers.get('content-type') ?? '').includes('application/json')) {
        const read = await readLimited(response, maxBytes);
        if (!read.ok) {
          if ('tooLarge' in read) return invalid(`The server's reply is larger than ${maxBytes} bytes.`);
          return thrownError(read.thrown, control, url, timeoutMs);
        }
        const single = completionFromWire(read.text, request);
        if (single.ok && single.value.content) options.onDelta?.(single.value.content);
        return single;
      }
      if (!response.body) return invalid('The server sent no body for a streaming request.');

      const reader = response.body.getReader();
      const parser = new SseParser();
      let content = '';
      let delivered = false;
      let bytes = 0;
      let id = '';
      let model = request.model;
      let finishReason: string | null = null;
      let usage: UsageWire | undefined;
      let sawDone = false;

      const partial = (): PartialOutput | undefined =>
        delivered ? { content, completionTokensEstimate: estimateTokens(content) } : undefined;
      const failed = (result: AttemptResult<never>): AttemptResult<never> => {
        if (result.ok) return result;
        const p = partial();
        if (p) return { ...result, retryable: false, error: { ...result.error, partial: p } };
        // Nothing reached the caller, but the provider probably billed this attempt: prompt
        // plus the text generated so far (budget accounting prices it all as output).
        return content
          ? { ...result, spentTokens: estimatePromptTokens(request.messages) + estimateTokens(content) }
          : result;
      };

      /** Applies one SSE event; returns a failure to stop the stream. */
      const apply = (event: SseEvent): AttemptResult<never> | undefined => {
        if (event.data === '[DONE]') {
          sawDone = true;
          return undefined;
        }
        let json: unknown;
        try {
          json = JSON.parse(event.data);
        } catch {
          return invalid(
            `The stream contained data that is not JSON ("${shorten(event.data, 60)}").`,
            [],
            partial(),
          );
        }
        if (isRecord(json) && json.error !== undefined) {
          const body = ErrorBodyWire.safeParse(json);
          const said = body.success
            ? typeof body.data.error === 'string'
              ? body.data.error
              : body.data.error.message
            : 'unknown error';
          const providerMessage = shorten(said, MAX_PROVIDER_MESSAGE_CHARS);
          return {
            ok: false,
            retryable: !delivered,
            error: {
              kind: 'http',
              status: response.status,
              attempts: 0,
              providerMessage,
              message: `The provider reported an error in the middle of the stream: "${providerMessage}"`,
            },
          };
        }
        const chunk = ChatCompletionChunkWire.safeParse(json);
        if (!chunk.success) {
          const issues = describeIssues(chunk.error);
          return invalid(
            `The stream contained a chunk that is not a chat completion chunk: ${issues.join('; ')}.`,
            issues,
            partial(),
          );
        }
        if (chunk.data.id) id = chunk.data.id;
        if (chunk.data.model) model = chunk.data.model;
        if (chunk.data.usage) usage = chunk.data.usage;
        const choice = chunk.data.choices[0];
        if (choice?.finish_reason) finishReason = choice.finish_reason;
        const text = choice?.delta?.content;
        if (text) {
          content += text;
          if (options.onDelta) {
            options.onDelta(text);
            delivered = true;
          }
        }
        return undefined;
      };

      try {
        while (!sawDone) {
          let read: ReadableStreamReadResult<Uint8Array>;
          try {
            read = await reader.read();
          } catch (err) {
            return failed(thrownError(err, control, url, timeoutMs));
          }
          const events = read.done ? parser.end() : parser.push(read.value);
          if (!read.done) {
            control.touch();
            bytes += read.value.byteLength;
            if (bytes > maxBytes)
              return invalid(`The stream is larger than ${maxBytes} bytes.`, [], partial());
          }
          for (const event of events) {
            const stop = apply(event);
            if (stop) return failed(stop);
            if (sawDone) break;
          }
          if (read.done) break;
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }

      if (!sawDone && finishReason === null) {
        return failed({
          ok: false,
          retryable: true,
          error: {
            kind: 'network',
            attempts: 0,
            message: `The stream from ${hostOf(url)} ended before the reply was complete.`,
          },
        });
      }
      return {
        ok: true,
        value: {
          id,
          model,
          content,
          finishReason,
          usage: usage ? usageFromWire(usage) : estimatedUsage(request.messages, content),
        },
      };
    });

  const listModels = async (options: CallOptions = {}): Promise<LlmResult<string[]>> => {
    if (!base.ok)
      return fail(redactSecrets({ kind: 'network', attempts: 0, message: base.message }, secrets));
    const url = `${base.url}/models`;
    const { result } = await withRetries<string[]>(options, async (control, timeoutMs) => {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'GET',
          headers: headers('application/json'),
          signal: control.controller.signal,
        });
      } catch (err) {
        return thrownError(err, control, url, timeoutMs);
      }
      if (!response.ok) return httpError(response);
      const read = await readLimited(response, maxBytes);
      if (!read.ok) {
        if ('tooLarge' in read) return invalid(`The model list is larger than ${maxBytes} bytes.`);
        return thrownError(read.thrown, control, url, timeoutMs);
      }
      let json: unknown;
      try {
        json = JSON.parse(read.text);
      } catch {
        return invalid(`The model list is not valid JSON (starts with "${shorten(read.text, 60)}").`);
      }
      const parsed = ModelListWire.safeParse(json);
      if (!parsed.success) {
        const issues = describeIssues(parsed.error);
        return invalid(`The model list has an unexpected shape: ${issues.join('; ')}.`, issues);
      }
      return { ok: true, value: parsed.data.data.map((m) => m.id) };
    });
    return result.ok ? result : fail(redactSecrets(result.error, secrets));
  };

  return { complete, stream, listModels };
}
