/**
 * Translation to and from the OpenAI wire format: the chat-completions request body, and the
 * completion and model-list bodies parsed through their zod schemas into client values.
 * Pure: no fetch, no timers.
 */
import type { z } from 'zod';
import { QUOTED_BODY_CHARS, invalid, shorten, type AttemptResult } from './classify.ts';
import { ChatCompletionWire, ModelListWire, describeIssues, type UsageWire } from './schemas.ts';
import type { ChatRequest, Completion } from './types.ts';
import { estimatedUsage, type Usage } from './usage.ts';

/** What a reply body gives; the call adds attempts, latency and cost. */
export type CompletionParts = Omit<Completion, 'attempts' | 'latencyMs' | 'costUsd'>;

/** The JSON body of a chat-completions request; `streamUsage` asks streams to report usage. */
export function requestBody(request: ChatRequest, stream: boolean, streamUsage: boolean): string {
  return JSON.stringify({
    model: request.model,
    messages: request.messages,
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.topP !== undefined ? { top_p: request.topP } : {}),
    ...(request.maxTokens !== undefined ? { max_tokens: request.maxTokens } : {}),
    ...(request.stop !== undefined ? { stop: request.stop } : {}),
    ...(request.seed !== undefined ? { seed: request.seed } : {}),
    ...(stream ? { stream: true } : {}),
    ...(stream && streamUsage ? { stream_options: { include_usage: true } } : {}),
    ...request.extraBody,
  });
}

export function usageFromWire(wire: UsageWire): Usage {
  return {
    promptTokens: wire.prompt_tokens,
    completionTokens: wire.completion_tokens,
    totalTokens: wire.total_tokens ?? wire.prompt_tokens + wire.completion_tokens,
    estimated: false,
  };
}

/**
 * Parses `text` as JSON of `schema`'s shape. On failure the message starts with `subject`
 * ("The server's reply"), and for the wrong shape goes on with `wrongShape` ("is not …").
 */
function parseBody<T>(
  text: string,
  schema: z.ZodType<T>,
  subject: string,
  wrongShape: string,
): AttemptResult<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return invalid(`${subject} is not valid JSON (starts with "${shorten(text, QUOTED_BODY_CHARS)}").`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    return invalid(`${subject} ${wrongShape}: ${issues.join('; ')}.`, issues);
  }
  return { ok: true, value: parsed.data };
}

/** A non-streamed completion body; usage is estimated when the server reports none. */
export function completionFromWire(text: string, request: ChatRequest): AttemptResult<CompletionParts> {
  const parsed = parseBody(text, ChatCompletionWire, "The server's reply", 'is not a chat completion');
  if (!parsed.ok) return parsed;
  const wire = parsed.value;
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
}

/** The model ids of a `GET /models` body. */
export function modelIdsFromWire(text: string): AttemptResult<string[]> {
  const parsed = parseBody(text, ModelListWire, 'The model list', 'has an unexpected shape');
  return parsed.ok ? { ok: true, value: parsed.value.data.map((m) => m.id) } : parsed;
}
