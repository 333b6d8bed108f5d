import { describe, expect, it } from 'vitest';
import { errorBodyMessage, httpFailure, invalid, thrownFailure } from './classify.ts';

const URL_ = 'https://api.example.com:8443/v1/chat/completions';
const idle = { userAborted: false, timedOut: false };

describe('thrownFailure', () => {
  it('calls it cancelled when the caller aborted, even if the timer also fired, and never retries', () => {
    expect(thrownFailure(new Error('x'), { userAborted: true, timedOut: true }, URL_, 1_500, true)).toEqual({
      ok: false,
      retryable: false,
      error: { kind: 'aborted', attempts: 0, message: 'The call was cancelled.' },
    });
  });

  it('gives a timeout with the host and seconds, retried only when the policy says so', () => {
    const timedOut = { userAborted: false, timedOut: true };
    expect(thrownFailure(new Error('x'), timedOut, URL_, 1_500, false)).toEqual({
      ok: false,
      retryable: false,
      error: {
        kind: 'timeout',
        timeoutMs: 1_500,
        attempts: 0,
        message: 'No response from api.example.com:8443 within 1.5 s.',
      },
    });
    expect(thrownFailure(new Error('x'), timedOut, URL_, 1_500, true).retryable).toBe(true);
  });

  it("gives a retryable network error naming the host and Node's cause code", () => {
    const err = new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });
    const failure = thrownFailure(err, idle, URL_, 1_000, false);
    expect(failure.retryable).toBe(true);
    expect(failure.error.kind).toBe('network');
    expect(failure.error.message).toBe(
      'Could not reach api.example.com:8443 or the connection broke (fetch failed (ECONNREFUSED)). Check the base URL, that the server is running, and that it allows requests from this page (CORS).',
    );
  });

  it('copes with a thrown non-Error and a URL that does not parse', () => {
    expect(thrownFailure('boom', idle, 'not a url', 1_000, false).error.message).toMatch(
      /^Could not reach not a url or the connection broke \(boom\)\./,
    );
  });
});

describe('httpFailure', () => {
  it('takes the provider message and Retry-After seconds from a 429', () => {
    expect(httpFailure(429, '{"error":{"message":"Slow down","type":"rate_limit"}}', ' 2 ', 0)).toStrictEqual(
      {
        ok: false,
        retryable: true,
        retryAfterMs: 2_000,
        error: {
          kind: 'http',
          status: 429,
          attempts: 0,
          message: 'The provider is rate-limiting requests (HTTP 429). The server said: "Slow down"',
          providerMessage: 'Slow down',
          retryAfterMs: 2_000,
        },
      },
    );
  });

  it('accepts an error given as a bare string, and sets no Retry-After when there is none', () => {
    expect(httpFailure(400, '{"error":"unknown model"}', null, 0)).toStrictEqual({
      ok: false,
      retryable: false,
      error: {
        kind: 'http',
        status: 400,
        attempts: 0,
        message: 'The server rejected the request (HTTP 400). The server said: "unknown model"',
        providerMessage: 'unknown model',
      },
    });
  });

  it('reads Retry-After as an HTTP date against the clock', () => {
    const now = Date.parse('2026-11-22T05:00:00Z');
    expect(httpFailure(503, '', 'Sun, 22 Nov 2026 05:00:03 GMT', now).retryAfterMs).toBe(3_000);
  });

  it('uses only the status text for an HTML page, an empty body or another JSON shape', () => {
    for (const body of ['<html><body>502 Bad Gateway</body></html>', '', '{"detail":"nope"}']) {
      const failure = httpFailure(502, body, null, 0);
      expect(failure.retryable).toBe(true);
      expect(failure.error).toStrictEqual({
        kind: 'http',
        status: 502,
        attempts: 0,
        message: 'The provider had a server error (HTTP 502).',
      });
    }
  });

  it('cuts a long provider message to 300 characters plus an ellipsis', () => {
    const long = 'x'.repeat(400);
    const failure = httpFailure(400, JSON.stringify({ error: { message: long } }), null, 0);
    expect(failure.error.kind === 'http' && failure.error.providerMessage).toBe(`${'x'.repeat(300)}…`);
  });
});

describe('errorBodyMessage', () => {
  it('reads OpenAI-shaped bodies and nothing else', () => {
    expect(errorBodyMessage({ error: { message: 'm', code: 'c' } })).toBe('m');
    expect(errorBodyMessage({ error: 's' })).toBe('s');
    expect(errorBodyMessage({ error: { code: 1 } })).toBeUndefined();
    expect(errorBodyMessage(null)).toBeUndefined();
  });
});

describe('invalid', () => {
  it('is never retried and carries the partial output only when given', () => {
    expect(invalid('bad', ['a: b'])).toStrictEqual({
      ok: false,
      retryable: false,
      error: { kind: 'invalid-response', attempts: 0, message: 'bad', issues: ['a: b'] },
    });
    const partial = { content: 'Hel', completionTokensEstimate: 1 };
    expect(invalid('bad', [], partial).error.partial).toEqual(partial);
  });
});
