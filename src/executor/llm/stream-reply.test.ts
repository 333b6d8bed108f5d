import { describe, expect, it } from 'vitest';
import type { Failure } from './classify.ts';
import { SseParser, type SseEvent } from './sse.ts';
import { StreamReply } from './stream-reply.ts';
import type { ChatRequest } from './types.ts';
import { estimatePromptTokens, estimatedUsage } from './usage.ts';

const URL_ = 'https://api.example.com/v1/chat/completions';
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'What is 2+2?' }] };

const data = (value: unknown): SseEvent => ({ event: 'message', data: JSON.stringify(value) });
const delta = (content: string, extra: Record<string, unknown> = {}): SseEvent =>
  data({ id: 'c1', model: 'm-2025', choices: [{ delta: { content } }], ...extra });
const DONE: SseEvent = { event: 'message', data: '[DONE]' };

/** Applies events until one is refused; returns that failure, if any. */
function feed(reply: StreamReply, events: readonly SseEvent[]): Failure | undefined {
  for (const event of events) {
    const stop = reply.apply(event);
    if (stop) return stop;
  }
  return undefined;
}

describe('StreamReply', () => {
  it('passes deltas on in order and ends with the id, model, finish reason and reported usage', () => {
    const deltas: string[] = [];
    const reply = new StreamReply(request, 200, (t) => deltas.push(t));
    const stop = feed(reply, [
      data({ choices: [{ delta: { role: 'assistant' } }] }),
      delta('2 + 2'),
      delta(''),
      delta(' = 4'),
      data({ choices: [{ delta: {}, finish_reason: 'stop' }] }),
      data({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } }),
      DONE,
    ]);
    expect(stop).toBeUndefined();
    expect(reply.done).toBe(true);
    expect(deltas).toEqual(['2 + 2', ' = 4']);
    const result = reply.finish(URL_);
    if (!result.ok) throw new Error(result.error.message);
    const { id, model, content, finishReason, usage } = result.value;
    expect([id, model, content, finishReason]).toEqual(['c1', 'm-2025', '2 + 2 = 4', 'stop']);
    expect(usage).toEqual({ promptTokens: 12, completionTokens: 3, totalTokens: 15, estimated: false });
  });

  it('assembles the reply from bytes cut mid-line and inside [DONE]', () => {
    const text = `data: ${delta('Hel').data}\n\ndata: ${delta('lo').data}\n\ndata: [DONE]\n\n`;
    const bytes = new TextEncoder().encode(text);
    const cuts = [10, text.indexOf('lo') + 1, text.indexOf('[DONE]') + 3, bytes.length];
    const parser = new SseParser();
    const reply = new StreamReply(request, 200);
    let from = 0;
    for (const cut of cuts) {
      expect(feed(reply, parser.push(bytes.subarray(from, cut)))).toBeUndefined();
      from = cut;
    }
    expect(reply.done).toBe(true);
    const result = reply.finish(URL_);
    expect(result.ok && result.value.content).toBe('Hello');
    expect(result.ok && result.value.usage).toEqual(estimatedUsage(request.messages, 'Hello'));
  });

  it('accepts a stream that ends with a finish reason but no [DONE]', () => {
    const reply = new StreamReply(request, 200);
    feed(reply, [data({ choices: [{ delta: { content: '4' }, finish_reason: 'length' }] })]);
    expect(reply.done).toBe(false);
    const result = reply.finish(URL_);
    expect(result.ok && result.value.finishReason).toBe('length');
  });

  it('retries a cut stream whose text nobody saw, counting the tokens it was probably billed', () => {
    const reply = new StreamReply(request, 200);
    feed(reply, [delta('2 + 2 is')]);
    expect(reply.finish(URL_)).toStrictEqual({
      ok: false,
      retryable: true,
      spentTokens: estimatePromptTokens(request.messages) + 2,
      error: {
        kind: 'network',
        attempts: 0,
        message: 'The stream from api.example.com ended before the reply was complete.',
      },
    });
    const empty = new StreamReply(request, 200).finish(URL_);
    expect(empty.ok).toBe(false);
    expect(empty).not.toHaveProperty('spentTokens');
  });

  it('does not retry a cut stream once text reached onDelta, and hands that text back', () => {
    const reply = new StreamReply(request, 200, () => undefined);
    feed(reply, [delta('2 + 2 is')]);
    const result = reply.finish(URL_);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.retryable).toBe(false);
    expect(!result.ok && result.error.partial).toEqual({ content: '2 + 2 is', completionTokensEstimate: 2 });
  });

  it('refuses a data line that is not JSON, quoting it, with the partial text once delivered', () => {
    const before = new StreamReply(request, 200, () => undefined);
    expect(before.apply({ event: 'message', data: '{"choices":[' })).toStrictEqual({
      ok: false,
      retryable: false,
      error: {
        kind: 'invalid-response',
        attempts: 0,
        message: 'The stream contained data that is not JSON ("{"choices":[").',
        issues: [],
      },
    });
    const after = new StreamReply(request, 200, () => undefined);
    const stop = feed(after, [delta('4'), { event: 'message', data: 'oops' }]);
    expect(stop?.error.partial).toEqual({ content: '4', completionTokensEstimate: 1 });
  });

  it('refuses a chunk of the wrong shape with its issues', () => {
    const stop = new StreamReply(request, 200).apply(data({ choices: 'x' }));
    expect(stop?.error).toMatchObject({
      kind: 'invalid-response',
      issues: ['choices: Invalid input: expected array, received string'],
    });
  });

  it("reports a provider's mid-stream error with the response status, retried only before delivery", () => {
    const fresh = new StreamReply(request, 200, () => undefined);
    expect(fresh.apply(data({ error: { message: 'overloaded' } }))).toStrictEqual({
      ok: false,
      retryable: true,
      error: {
        kind: 'http',
        status: 200,
        attempts: 0,
        providerMessage: 'overloaded',
        message: 'The provider reported an error in the middle of the stream: "overloaded"',
      },
    });
    const shown = new StreamReply(request, 200, () => undefined);
    const stop = feed(shown, [delta('4'), data({ error: 42 })]);
    expect(stop).toMatchObject({ retryable: false, error: { providerMessage: 'unknown error' } });
    expect(stop && shown.failed(stop).error.partial?.content).toBe('4');
  });
});
