/** Token usage, as reported by the server or estimated when it is not. */

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** True when the server did not report usage and these are client-side estimates. */
  estimated: boolean;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/**
 * Rough token count: ceil(UTF-16 length / 4). English text averages about 4 characters per
 * token in GPT-style BPE vocabularies; it under-counts code and non-Latin scripts, which is
 * why estimates are marked `estimated` and budgets keep a margin.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Per-message framing overhead in chat formats, tokens (OpenAI's published rule of thumb). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** Tokens that prime the assistant's reply. */
const REPLY_PRIMING_TOKENS = 2;

export function estimatePromptTokens(messages: readonly ChatMessage[]): number {
  return messages.reduce(
    (sum, m) => sum + MESSAGE_OVERHEAD_TOKENS + estimateTokens(m.content),
    REPLY_PRIMING_TOKENS,
  );
}

export function estimatedUsage(messages: readonly ChatMessage[], completion: string): Usage {
  const promptTokens = estimatePromptTokens(messages);
  const completionTokens = estimateTokens(completion);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}
