/**
 * Prompt formats: how a model is asked for a design and how its output is read back, and the
 * constrained decoding that holds it to that format.
 *
 * - `chat` (the hub presets, anything typed in): Baton's orchestrator chat messages through the
 *   model's chat template; MAS-Orchestra XML read by `parseDesign`; the `hub` grammar.
 * - `tiny` (the project's models): the DoM marker, the query and the design marker as token ids
 *   (`tinyPromptIds`); the compact design read and made runnable from the role list by `readTiny2`
 *   (tiny2-format.ts; it reads version-1 designs as tiny-format.ts's `expandTinyDesign` does); the
 *   `tiny` grammar (version 1) or `tiny2` grammar (version 2, told by the folder's config.json).
 */
import type { ChatMessage } from '../core/trace.ts';
import { formatReport, parseDesign } from '../design/parse.ts';
import { DEFAULT_POOL, type RolePool } from '../policy/index.ts';
import { createDesignConstraint } from './constrain/engine.ts';
import type { DesignRead, DomChoice } from './designer.ts';
import type { Prompt } from './generate.ts';
import type { LoadedLm } from './load.ts';
import type { Constraint, ConstraintContext } from './runtime.ts';
import { tinyPromptIds, tinyRoles, trainedQueryTokens } from './tiny-format.ts';
import { readTiny2, tiny2Roles, tinyVersionOf } from './tiny2-format.ts';

export interface PromptFormatAdapter {
  /** `maxNewTokens`: what the answer may take, so a model with few positions keeps room for it. */
  prompt(query: string, dom: DomChoice, lm: LoadedLm, maxNewTokens: number): Prompt;
  read(rawOutput: string, dom: DomChoice): DesignRead;
}

const asked = (dom: DomChoice): 'low' | 'high' => (dom === 'low' ? 'low' : 'high');

/** `auto` asks for the DAG prompt (a single agent is still a valid DAG) and reads the DoM from the design. */
export function chatFormat(
  messages: (query: string, dom: 'low' | 'high') => ChatMessage[],
): PromptFormatAdapter {
  return {
    prompt: (query, dom) => ({ kind: 'chat', messages: messages(query, asked(dom)) }),
    read(rawOutput, dom) {
      const report = parseDesign(rawOutput, dom === 'auto' ? undefined : dom);
      return { design: report.design, errors: formatReport(report) };
    },
  };
}

/** The model's positions (`n_positions`), when its config says. */
export function positionsOf(lm: LoadedLm): number | null {
  const c = (lm.model as unknown as { config?: { n_positions?: unknown; max_position_embeddings?: unknown } })
    .config;
  const n = Number(c?.n_positions ?? c?.max_position_embeddings);
  return Number.isInteger(n) && n > 0 ? n : null;
}

const configOf = (lm: LoadedLm): unknown => (lm.model as unknown as { config?: unknown }).config;

/** The tiny format version the loaded model speaks (tiny2-format.ts `tinyVersionOf`). */
export const tinyVersionOfLm = (lm: LoadedLm): 1 | 2 => tinyVersionOf(configOf(lm));

/**
 * The project's own models. Version 1 (`tiny`) reads the query's end and writes the role plan;
 * version 2 (`tiny2`, told by the folder's config.json) reads the whole query (its positions hold
 * the longest generated question; a longer free-text query keeps its end, leaving a quarter of the
 * positions for the design), states its plan in words and may answer directly in low DoM.
 */
export function tinyFormat(pool: RolePool = DEFAULT_POOL): PromptFormatAdapter {
  return {
    prompt(query, dom, lm, maxNewTokens) {
      const positions = positionsOf(lm) ?? 4096;
      const encode = (t: string): number[] => lm.tokenizer.encode(t, { add_special_tokens: false });
      if (tinyVersionOfLm(lm) === 2) {
        const keep = Math.min(maxNewTokens, Math.floor(positions / 4));
        return {
          kind: 'ids',
          ids: tinyPromptIds(query, asked(dom), encode, Math.max(8, positions - 2 - keep)),
        };
      }
      // The query keeps at least a quarter of the positions; the answer gets what is left. A model
      // whose config states the query length it was trained on gets no more than that.
      const fit = Math.max(8, positions - maxNewTokens - 2, Math.floor(positions / 4));
      const trained = trainedQueryTokens((lm.model as unknown as { config?: unknown }).config);
      const budget = trained === null ? fit : Math.min(fit, trained);
      return { kind: 'ids', ids: tinyPromptIds(query, asked(dom), encode, budget) };
    },
    // Version 2's reader reads every version-1 design as version 1 does (the same roles, runnable
    // design and thinking; tested), and v2's direct answers and archive roles besides.
    read(rawOutput, dom) {
      const r = readTiny2(rawOutput, dom === 'auto' ? undefined : dom, pool);
      return r.ok ? { design: r.design, errors: [] } : { design: null, errors: r.problems };
    },
  };
}

/**
 * Field and agent limits for a generation of `maxNewTokens` tokens (what the prompt leaves of the
 * model's positions, capped by the request): the engine closes a free text field after `text`
 * tokens, allows at most `maxAgents` agents, and, given the budget itself (`maxTokens`), forces the
 * cheapest valid completion once the budget nearly runs out, so a finished output always holds a
 * complete design. The limits keep designs sensible before that point: about 50 tokens of tags, id,
 * name and role per agent on a byte-level vocabulary, plus its input text and an edge pair. The tiny
 * format spells every tag as one token and writes only references as inputs, so an agent and its
 * edge cost about 27 tokens there (the tiny model's 190-token answer allows 6 agents, as many as the
 * teacher's designs it was trained on hold).
 */
export function designBudget(
  maxNewTokens: number,
  format: 'tiny' | 'tiny2' | 'hub' = 'hub',
): {
  fieldTokens: { text: number };
  maxAgents: number;
  maxTokens: number;
} {
  if (format === 'tiny2') {
    // The thinking states one line per agent (about 15 tokens each); an agent and its edge cost
    // about 27 more.
    const text = Math.max(16, Math.min(256, Math.floor(maxNewTokens / 2)));
    const maxAgents = Math.max(1, Math.min(8, Math.floor((maxNewTokens - 8) / 42)));
    return { fieldTokens: { text }, maxAgents, maxTokens: maxNewTokens };
  }
  const text = Math.max(8, Math.min(256, Math.floor(maxNewTokens / 16)));
  const perAgent = format === 'tiny' ? 27 : 50 + text + 12;
  const fixed = format === 'tiny' ? 8 : text + 16;
  const maxAgents = Math.max(1, Math.min(8, Math.floor((maxNewTokens - fixed) / perAgent)));
  return { fieldTokens: { text }, maxAgents, maxTokens: maxNewTokens };
}

/**
 * Constrained decoding for a generation (src/orchestrator/constrain): the grammar of the model's
 * format (`tiny` over the pool's roles, `hub` over the archive), its masks applied by
 * `DesignLogitsProcessor`; the counts (`steps`, `maskedSteps`, `forcedTokens`, `maskMs`) go into the
 * designer record.
 */
export async function designConstraint(
  ctx: ConstraintContext,
  pool: RolePool = DEFAULT_POOL,
): Promise<Constraint> {
  const tiny = ctx.promptFormat === 'tiny';
  const format = !tiny ? 'hub' : tinyVersionOfLm(ctx.lm) === 2 ? 'tiny2' : 'tiny';
  const constraint = await createDesignConstraint({
    vocab: ctx.lm.tokenizer as never,
    vocabSize: ctx.lm.vocabSize,
    eosIds: ctx.lm.eosIds,
    format,
    dom: asked(ctx.dom),
    ...(format === 'tiny2' ? { roles: tiny2Roles(pool) } : tiny ? { roles: tinyRoles(pool) } : {}),
    ...designBudget(ctx.maxNewTokens, format),
  });
  const { DesignLogitsProcessor } = await import('./constrain/processor.ts');
  return {
    processors: [new DesignLogitsProcessor(constraint)],
    stats: () => ({ ...constraint.stats }),
  };
}
