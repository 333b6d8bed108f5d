/**
 * `StreamReply`: folds the Server-Sent Events of one streamed attempt into a completion —
 * text deltas (passed on to `onDelta` as they come), id, model, finish reason, usage,
 * `[DONE]`, and errors a provider reports mid-stream — and decides what a failure means once
 * text has reached the caller. Pure: the bytes are read in `http.ts`, parsed by `SseParser`.
 */
import {
  MAX_PROVIDER_MESSAGE_CHARS,
  QUOTED_BODY_CHARS,
  errorBodyMessage,
  hostOf,
  invalid,
  shorten,
  type AttemptResult,
  type Failure,
} from './classify.ts';
import type { PartialOutput } from './errors.ts';
import { ChatCompletionChunkWire, describeIssues, type UsageWire } from './schemas.ts';
import type { SseEvent } from './sse.ts';
import type { ChatRequest } from './types.ts';
import { estimatePromptTokens, estimateTokens, estimatedUsage } from './usage.ts';
import { usageFromWire, type CompletionParts } from './wire.ts';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class StreamReply {
  /** Set by `data: [DONE]`: the server says the reply is complete; stop reading. */
  done = false;
  private content = '';
  /** Whether any text has reached `onDelta`; from then on a failure is not retried. */
  private delivered = false;
  private id = '';
  private model: string;
  private finishReason: string | null = null;
  private usage: UsageWire | undefined;

  /** `status` is the HTTP status of the response, reported with a mid-stream error. */
  constructor(
    private readonly request: ChatRequest,
    private readonly status: number,
    private readonly onDelta?: (text: string) => void,
  ) {
    this.model = request.model;
  }

  /** The text the caller has already seen, when it has seen any. */
  partial(): PartialOutput | undefined {
    return this.delivered
      ? { content: this.content, completionTokensEstimate: estimateTokens(this.content) }
      : undefined;
  }

  /** Adjusts a failure of this attempt for what the caller has seen and what was billed. */
  failed(result: Failure): Failure {
    const p = this.partial();
    if (p) return { ...result, retryable: false, error: { ...result.error, partial: p } };
    // Nothing reached the caller, but the provider probably billed this attempt: prompt
    // plus the text generated so far (budget accounting prices it all as output).
    return this.content
      ? {
          ...result,
          spentTokens: estimatePromptTokens(this.request.messages) + estimateTokens(this.content),
        }
      : result;
  }

  /** Applies one SSE event; returns a failure to stop the stream. */
  apply(event: SseEvent): Failure | undefined {
    if (event.data === '[DONE]') {
      this.done = true;
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      return invalid(
        `The stream contained data that is not JSON ("${shorten(event.data, QUOTED_BODY_CHARS)}").`,
        [],
        this.partial(),
      );
    }
    if (isRecord(json) && json.error !== undefined) {
      const providerMessage = shorten(errorBodyMessage(json) ?? 'unknown error', MAX_PROVIDER_MESSAGE_CHARS);
      return {
        ok: false,
        retryable: !this.delivered,
        error: {
          kind: 'http',
          status: this.status,
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
        this.partial(),
      );
    }
    if (chunk.data.id) this.id = chunk.data.id;
    if (chunk.data.model) this.model = chunk.data.model;
    if (chunk.data.usage) this.usage = chunk.data.usage;
    const choice = chunk.data.choices[0];
    if (choice?.finish_reason) this.finishReason = choice.finish_reason;
    const text = choice?.delta?.content;
    if (text) {
      this.content += text;
      if (this.onDelta) {
        this.onDelta(text);
        this.delivered = true;
      }
    }
    return undefined;
  }

  /**
   * The completion once the body has ended. Without `[DONE]` or a finish reason the stream
   * was cut short: a network failure from `url`'s host, retried only if nothing was shown.
   */
  finish(url: string): AttemptResult<CompletionParts> {
    if (!this.done && this.finishReason === null) {
      return this.failed({
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
        id: this.id,
        model: this.model,
        content: this.content,
        finishReason: this.finishReason,
        usage: this.usage ? usageFromWire(this.usage) : estimatedUsage(this.request.messages, this.content),
      },
    };
  }
}
