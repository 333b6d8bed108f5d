/**
 * What a provider's design may spend at most, shown on the Orchestrate page before it starts.
 */
import { SCHEMA_OUTPUT_NOTE } from '../../design/json-schema.ts';
import { designBudgetPreview, resolveDesignOutput } from '../../executor/provider-design-read.ts';
import { orchestratorMessages } from '../../interop/index.ts';
import { DESIGN_MAX_TOKENS } from './orchestrate-provider.ts';
import type { SettingsSlice } from './settings.ts';

/**
 * What the design may spend at most, before it starts: every attempt at its prompt plus the
 * per-call completion limit, priced with the Settings' table; and the Settings' limits it counts
 * against (the same limits as the run's sub-agents).
 */
export function providerDesignPreview(
  s: Pick<SettingsSlice, 'provider' | 'connections' | 'prices' | 'budget' | 'repairTurns' | 'designOutput'>,
  query: string,
  dom: 'low' | 'high' | 'auto',
): {
  calls: number;
  tokens: number;
  usd: number | undefined;
  limitTokens: number | null;
  limitUsd: number | null;
} {
  const schema = resolveDesignOutput(s.designOutput, s.provider) === 'json-schema';
  const p = designBudgetPreview({
    // Asked for the JSON schema, the prompt carries its note too (provider-designer.ts).
    messages: [
      ...orchestratorMessages(query, dom === 'low' ? 'low' : 'high'),
      ...(schema ? [{ content: SCHEMA_OUTPUT_NOTE }] : []),
    ],
    maxTokens: DESIGN_MAX_TOKENS,
    repairTurns: s.repairTurns,
    model: s.connections[s.provider].model.trim(),
    prices: s.prices,
  });
  return { ...p, limitTokens: s.budget.totalTokens, limitUsd: s.budget.totalUsd };
}
