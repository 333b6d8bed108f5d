/** The `ChatBackend` for OpenAI-compatible providers, over the client in `llm/`. */
import { costOf, DEFAULT_PRICES, type LlmClient, type PriceTable } from './llm/index.ts';
import type { ChatBackend } from './types.ts';

export interface RemoteWhere {
  /** Provider id for the trace, e.g. `openai` (default `custom`). */
  provider?: string;
  /** Base URL for the trace; credentials, query and fragment are dropped before it is recorded. */
  baseUrl?: string;
  /** Per-attempt timeout, ms (default: the client's). */
  timeoutMs?: number;
}

/** The base URL without anything that could carry a secret (user:pass@, ?key=, #…). */
export function publicBaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return 'invalid-url';
  }
}

export function remoteBackend(
  client: LlmClient,
  model: string,
  prices: PriceTable = DEFAULT_PRICES,
  where: RemoteWhere = {},
): ChatBackend {
  return {
    info: {
      kind: 'remote',
      provider: where.provider ?? 'custom',
      baseUrl: where.baseUrl ? publicBaseUrl(where.baseUrl) : 'unknown',
      model,
    },
    tags: [],
    modelFor: (call) => call.model ?? model,
    costOf: (m, promptTokens, completionTokens) => costOf({ promptTokens, completionTokens }, m, prices),
    async chat(call) {
      const m = call.model ?? model;
      const request = {
        model: m,
        // Agents send system, user and assistant turns only; anything else goes as user text.
        messages: call.messages.map((msg) => ({
          role: msg.role === 'tool' ? 'user' : msg.role,
          content: msg.content,
        })),
        ...(call.temperature !== undefined ? { temperature: call.temperature } : {}),
        ...(call.maxTokens !== undefined ? { maxTokens: call.maxTokens } : {}),
      };
      const opts = {
        signal: call.signal,
        ...(where.timeoutMs !== undefined ? { timeoutMs: where.timeoutMs } : {}),
      };
      // Stream only when someone watches the text arrive; a plain completion is simpler to retry.
      const result = call.onDelta
        ? await client.stream(request, { ...opts, onDelta: call.onDelta })
        : await client.complete(request, opts);
      if (!result.ok) {
        const partial = result.error.partial;
        return {
          ok: false,
          kind: result.error.kind,
          message: result.error.message,
          model: m,
          promptTokens: 0,
          completionTokens: partial?.completionTokensEstimate ?? 0,
        };
      }
      const v = result.value;
      return {
        ok: true,
        output: v.content,
        model: v.model || m,
        promptTokens: v.usage.promptTokens,
        completionTokens: v.usage.completionTokens,
        tokensEstimated: v.usage.estimated,
        costUsd: v.costUsd ?? 0,
      };
    },
  };
}
