/**
 * An editable price table: USD per million tokens, input and output, keyed by model name.
 * The defaults are list prices published by the providers in 2025 and go stale; the UI
 * shows the table so users can correct it, and costs computed from it are estimates.
 */
import type { Usage } from './usage.ts';

export interface ModelPrice {
  /** USD per 1,000,000 prompt (input) tokens. */
  inputPerMTok: number;
  /** USD per 1,000,000 completion (output) tokens. */
  outputPerMTok: number;
}

export type PriceTable = Readonly<Record<string, ModelPrice>>;

export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'deepseek-chat': { inputPerMTok: 0.27, outputPerMTok: 1.1 },
  'deepseek-reasoner': { inputPerMTok: 0.55, outputPerMTok: 2.19 },
  'llama-3.1-8b-instant': { inputPerMTok: 0.05, outputPerMTok: 0.08 },
  'llama-3.3-70b-versatile': { inputPerMTok: 0.59, outputPerMTok: 0.79 },
  'meta-llama/Llama-3.3-70B-Instruct-Turbo': { inputPerMTok: 0.88, outputPerMTok: 0.88 },
};

/**
 * Finds the price of `model`: an exact key; else the name without a "vendor/" prefix
 * (OpenRouter's "openai/gpt-4o-mini"); else the longest key that the name starts with,
 * followed by '-' (dated snapshots like "gpt-4o-mini-2024-07-18").
 */
export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  const exact = table[model];
  if (exact) return exact;
  const slash = model.lastIndexOf('/');
  const bare = slash === -1 ? model : model.slice(slash + 1);
  if (table[bare]) return table[bare];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (bare.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/**
 * USD cost = (prompt · input + completion · output) / 1e6. Undefined when the model has no
 * price in the table: unknown is not the same as free.
 */
export function costOf(
  usage: Pick<Usage, 'promptTokens' | 'completionTokens'>,
  model: string,
  table: PriceTable,
): number | undefined {
  const price = priceOf(model, table);
  if (!price) return undefined;
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1_000_000;
}
