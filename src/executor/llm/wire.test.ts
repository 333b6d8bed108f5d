import { describe, expect, it } from 'vitest';
import type { ChatRequest } from './types.ts';
import { estimatedUsage } from './usage.ts';
import { completionFromWire, modelIdsFromWire, requestBody } from './wire.ts';

const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'What is 2+2?' }] };

describe('requestBody', () => {
  it('sends only the fields that are set, in wire names', () => {
    expect(requestBody(request, false, true)).toBe(
      '{"model":"m","messages":[{"role":"user","content":"What is 2+2?"}]}',
    );
    const full = { ...request, temperature: 0.2, topP: 0.9, maxTokens: 64, stop: ['\n'], seed: 7 };
    expect(JSON.parse(requestBody(full, false, true))).toEqual({
      model: 'm',
      messages: request.messages,
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 64,
      stop: ['\n'],
      seed: 7,
    });
  });

  it('asks a stream for usage unless told not to', () => {
    expect(JSON.parse(requestBody(request, true, true))).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(JSON.parse(requestBody(request, true, false))).not.toHaveProperty('stream_options');
  });

  it('lets extraBody add provider fields and override the others', () => {
    const body = JSON.parse(
      requestBody({ ...request, maxTokens: 64, extraBody: { max_tokens: 8, reasoning: 'low' } }, false, true),
    );
    expect(body).toMatchObject({ max_tokens: 8, reasoning: 'low' });
  });
});

describe('completionFromWire', () => {
  it('reads content, finish reason and usage, summing a missing total', () => {
    const text = JSON.stringify({
      id: 'c1',
      model: 'm-2025',
      choices: [{ message: { role: 'assistant', content: '4' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 1 },
    });
    expect(completionFromWire(text, request)).toEqual({
      ok: true,
      value: {
        id: 'c1',
        model: 'm-2025',
        content: '4',
        finishReason: 'stop',
        usage: { promptTokens: 12, completionTokens: 1, totalTokens: 13, estimated: false },
      },
    });
  });

  it('takes null content as empty and estimates usage the server did not report', () => {
    const text = '{"id":"c2","model":"m","choices":[{"message":{"content":null}}],"usage":null}';
    expect(completionFromWire(text, request)).toEqual({
      ok: true,
      value: {
        id: 'c2',
        model: 'm',
        content: '',
        finishReason: null,
        usage: estimatedUsage(request.messages, ''),
      },
    });
  });

  it('quotes the first 60 characters of a body that is not JSON', () => {
    const page = `<!doctype html>${'x'.repeat(100)}`;
    const result = completionFromWire(page, request);
    expect(!result.ok && result.error.message).toBe(
      `The server's reply is not valid JSON (starts with "${page.slice(0, 60)}…").`,
    );
  });

  it('lists the issues of JSON that is not a chat completion, without retrying', () => {
    expect(completionFromWire('{"id":"a","model":"m","choices":[]}', request)).toStrictEqual({
      ok: false,
      retryable: false,
      error: {
        kind: 'invalid-response',
        attempts: 0,
        message: "The server's reply is not a chat completion: choices: the response has no choices.",
        issues: ['choices: the response has no choices'],
      },
    });
  });
});

describe('modelIdsFromWire', () => {
  it('lists the ids, and says what is wrong with other bodies', () => {
    expect(modelIdsFromWire('{"object":"list","data":[{"id":"a","owned_by":"x"},{"id":"b"}]}')).toEqual({
      ok: true,
      value: ['a', 'b'],
    });
    const notJson = modelIdsFromWire('nope');
    expect(!notJson.ok && notJson.error.message).toBe(
      'The model list is not valid JSON (starts with "nope").',
    );
    const wrong = modelIdsFromWire('{"models":[]}');
    expect(!wrong.ok && wrong.error.message).toMatch(/^The model list has an unexpected shape: data: /);
  });
});
