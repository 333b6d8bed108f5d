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
 *
 * This module composes the pieces: `attempts.ts` (retry loop, timeouts), `http.ts` (fetch
 * and bodies), `wire.ts` and `stream-reply.ts` (replies), `charges.ts` (budget).
 */
import { withRetries, type RetryRunner } from './attempts.ts';
import { CallCharge } from './charges.ts';
import { invalid, type AttemptResult } from './classify.ts';
import { fail, ok, redactSecrets, type LlmResult } from './errors.ts';
import { readBody, readEventStream, send, type Exchange, type Transport } from './http.ts';
import { DEFAULT_PRICES, costOf } from './pricing.ts';
import { normalizeBaseUrl } from './providers.ts';
import { DEFAULT_RETRY_POLICY, realSleep, type RetryPolicy } from './retry.ts';
import { StreamReply } from './stream-reply.ts';
import type {
  CallOptions,
  ChatRequest,
  Completion,
  LlmClient,
  LlmClientConfig,
  StreamOptions,
} from './types.ts';
import { completionFromWire, modelIdsFromWire, requestBody, type CompletionParts } from './wire.ts';

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export function createLlmClient(config: LlmClientConfig): LlmClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
  const now = config.now ?? (() => Date.now());
  const prices = config.prices ?? DEFAULT_PRICES;
  const streamUsage = config.streamUsage ?? true;
  const secrets = config.apiKey ? [config.apiKey] : [];
  const base = normalizeBaseUrl(config.baseUrl);
  const runner: RetryRunner = {
    policy,
    sleep: config.sleep ?? realSleep,
    random: config.random ?? Math.random,
    secrets,
  };
  const transport: Transport = {
    fetch: config.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now,
    maxBytes: config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    retryOnTimeout: policy.retryOnTimeout,
  };

  const headers = (accept: string): Record<string, string> => {
    const h: Record<string, string> = { ...config.headers, accept };
    if (config.apiKey) h.authorization = `Bearer ${config.apiKey}`;
    return h;
  };

  /** Runs `attempt` with retries, each attempt on its own abort control and timeout. */
  const attempted = <T>(
    url: string,
    options: CallOptions,
    attempt: (exchange: Exchange) => Promise<AttemptResult<T>>,
  ) =>
    withRetries(runner, options, options.timeoutMs ?? config.timeoutMs ?? DEFAULT_TIMEOUT_MS, (control, ms) =>
      attempt({ url, control, timeoutMs: ms }),
    );

  const postChat = (exchange: Exchange, request: ChatRequest, stream: boolean) =>
    send(transport, exchange, {
      method: 'POST',
      headers: {
        ...headers(stream ? 'text/event-stream' : 'application/json'),
        'content-type': 'application/json',
      },
      body: requestBody(request, stream, streamUsage),
    });

  const readCompletion = async (
    exchange: Exchange,
    response: Response,
    request: ChatRequest,
  ): Promise<AttemptResult<CompletionParts>> => {
    const read = await readBody(transport, exchange, response, "The server's reply");
    return read.ok ? completionFromWire(read.value, request) : read;
  };

  /** Reserves budget, runs the call with retries, settles the budget, redacts the result. */
  const call = async (
    request: ChatRequest,
    options: CallOptions,
    attempt: (exchange: Exchange) => Promise<AttemptResult<CompletionParts>>,
  ): Promise<LlmResult<Completion>> => {
    const started = now();
    if (!base.ok)
      return fail(redactSecrets({ kind: 'network', attempts: 0, message: base.message }, secrets));
    let charge: CallCharge | undefined;
    if (config.budget) {
      const reserved = CallCharge.reserve(config.budget, request, prices);
      if (!reserved.ok) return fail(redactSecrets(reserved.error, secrets));
      charge = reserved.charge;
    }

    const { result, attempts, spentTokens } = await attempted(
      `${base.url}/chat/completions`,
      options,
      attempt,
    );

    if (result.ok) {
      const value = result.value;
      const costUsd = costOf(value.usage, value.model, prices) ?? costOf(value.usage, request.model, prices);
      charge?.succeeded(value.usage, costUsd, spentTokens);
      return ok(redactSecrets({ ...value, costUsd, attempts, latencyMs: now() - started }, secrets));
    }
    charge?.failed(result.error.partial, spentTokens);
    return fail(redactSecrets(result.error, secrets));
  };

  const complete = (request: ChatRequest, options: CallOptions = {}): Promise<LlmResult<Completion>> =>
    call(request, options, async (exchange) => {
      const sent = await postChat(exchange, request, false);
      return sent.ok ? readCompletion(exchange, sent.value, request) : sent;
    });

  const stream = (request: ChatRequest, options: StreamOptions = {}): Promise<LlmResult<Completion>> =>
    call(request, options, async (exchange) => {
      const sent = await postChat(exchange, request, true);
      if (!sent.ok) return sent;
      const response = sent.value;

      // Some servers ignore `stream: true` and answer with one JSON body: accept it.
      if ((response.headers.get('content-type') ?? '').includes('application/json')) {
        const single = await readCompletion(exchange, response, request);
        if (single.ok && single.value.content) options.onDelta?.(single.value.content);
        return single;
      }
      if (!response.body) return invalid('The server sent no body for a streaming request.');

      const reply = new StreamReply(request, response.status, options.onDelta);
      const stopped = await readEventStream(transport, exchange, response.body, reply);
      return stopped ?? reply.finish(exchange.url);
    });

  const listModels = async (options: CallOptions = {}): Promise<LlmResult<string[]>> => {
    if (!base.ok)
      return fail(redactSecrets({ kind: 'network', attempts: 0, message: base.message }, secrets));
    const { result } = await attempted(`${base.url}/models`, options, async (exchange) => {
      const sent = await send(transport, exchange, {
        method: 'GET',
        headers: headers('application/json'),
      });
      if (!sent.ok) return sent;
      const read = await readBody(transport, exchange, sent.value, 'The model list');
      return read.ok ? modelIdsFromWire(read.value) : read;
    });
    return result.ok ? result : fail(redactSecrets(result.error, secrets));
  };

  return { complete, stream, listModels };
}
