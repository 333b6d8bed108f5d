/**
 * The HTTP side of one attempt: sending the request with the attempt's abort signal, reading
 * a size-limited body, turning a non-2xx response into a failure with the provider's message,
 * and reading an SSE body into a `StreamReply` (each chunk restarts the idle timeout).
 * Every rejected fetch or read is classified by `classify.ts`, never thrown.
 */
import type { AttemptControl } from './attempts.ts';
import { httpFailure, invalid, thrownFailure, type AttemptResult, type Failure } from './classify.ts';
import { SseParser } from './sse.ts';
import type { StreamReply } from './stream-reply.ts';

/** Error bodies are only read for a message; more than this is not useful, bytes. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What every attempt of a client shares. */
export interface Transport {
  fetch: typeof fetch;
  /** Clock in ms, for Retry-After dates. */
  now: () => number;
  /** Largest response body accepted, bytes. */
  maxBytes: number;
  /** Whether a timed-out attempt may be retried (`RetryPolicy.retryOnTimeout`). */
  retryOnTimeout: boolean;
}

/** One attempt: where it goes, its abort control, and its timeout in ms (for the message). */
export interface Exchange {
  url: string;
  control: AttemptControl;
  timeoutMs: number;
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

function thrown(transport: Transport, exchange: Exchange, err: unknown): Failure {
  return thrownFailure(err, exchange.control, exchange.url, exchange.timeoutMs, transport.retryOnTimeout);
}

/** Turns a non-2xx response into a failure, reading the provider's message if it sent one. */
async function httpError(transport: Transport, response: Response): Promise<Failure> {
  const read = await readLimited(response, MAX_ERROR_BODY_BYTES);
  return httpFailure(
    response.status,
    read.ok ? read.text : '',
    response.headers.get('retry-after'),
    transport.now(),
  );
}

/** Sends the request; the value is a 2xx response, anything else a classified failure. */
export async function send(
  transport: Transport,
  exchange: Exchange,
  init: Omit<RequestInit, 'signal'>,
): Promise<AttemptResult<Response>> {
  let response: Response;
  try {
    response = await transport.fetch(exchange.url, { ...init, signal: exchange.control.controller.signal });
  } catch (err) {
    return thrown(transport, exchange, err);
  }
  if (!response.ok) return httpError(transport, response);
  return { ok: true, value: response };
}

/** Reads the whole body as text; `subject` names it in the too-large error ("The model list"). */
export async function readBody(
  transport: Transport,
  exchange: Exchange,
  response: Response,
  subject: string,
): Promise<AttemptResult<string>> {
  const read = await readLimited(response, transport.maxBytes);
  if (read.ok) return { ok: true, value: read.text };
  if ('tooLarge' in read) return invalid(`${subject} is larger than ${transport.maxBytes} bytes.`);
  return thrown(transport, exchange, read.thrown);
}

/**
 * Feeds an SSE body into `reply` until `[DONE]` or its end. Returns the failure that stopped
 * it (a broken read, a body over `maxBytes`, an event `reply` refused), else undefined.
 */
export async function readEventStream(
  transport: Transport,
  exchange: Exchange,
  body: NonNullable<Response['body']>,
  reply: StreamReply,
): Promise<Failure | undefined> {
  const reader = body.getReader();
  const parser = new SseParser();
  let bytes = 0;
  try {
    while (!reply.done) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (err) {
        return reply.failed(thrown(transport, exchange, err));
      }
      const events = read.done ? parser.end() : parser.push(read.value);
      if (!read.done) {
        exchange.control.touch();
        bytes += read.value.byteLength;
        if (bytes > transport.maxBytes)
          return invalid(`The stream is larger than ${transport.maxBytes} bytes.`, [], reply.partial());
      }
      for (const event of events) {
        const stop = reply.apply(event);
        if (stop) return reply.failed(stop);
        if (reply.done) break;
      }
      if (read.done) break;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return undefined;
}
