/**
 * Prompt formats: how a model is asked for a design and how its output is read back, and the
 * constrained decoding that holds it to that format.
 *
 * - `chat` (the hub presets, anything typed in): Baton's orchestrator chat messages through the
 *   model's chat template; MAS-Orchestra XML read by `parseDesign`; the `hub` grammar.
 * - `tiny` (the project's model): the DoM marker, the query and the design marker as token ids
 *   (`tinyPromptIds`); the compact design read by `parseDesignXml` and made runnable from the role
 *   pool by `expandTinyDesign` (tiny-format.ts); the `tiny` grammar over the pool's roles.
 */
import type { ChatMessage } from '../core/trace.ts';
import { formatReport, parseDesign } from '../design/parse.ts';
import { parseDesignXml } from '../design/xml.ts';
import { DEFAULT_POOL, type RolePool } from '../policy/index.ts';
import { createDesignConstraint } from './constrain/engine.ts';
import type { DesignRead, DomChoice } from './designer.ts';
import type { Prompt } from './generate.ts';
import type { LoadedLm } from './load.ts';
import type { Constraint, ConstraintContext } from './runtime.ts';
import { expandTinyDesign, tinyPromptIds, tinyRoles, trainedQueryTokens } from './tiny-format.ts';

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

export function tinyFormat(pool: RolePool = DEFAULT_POOL): PromptFormatAdapter {
  return {
    prompt(query, dom, lm, maxNewTokens) {
      const positions = positionsOf(lm) ?? 4096;
      const encode = (t: string): number[] => lm.tokenizer.encode(t, { add_special_tokens: false });
      // The query keeps at least a quarter of the positions; the answer gets what is left. A model
      // whose config states the query length it was trained on gets no more than that.
      const fit = Math.max(8, positions - maxNewTokens - 2, Math.floor(positions / 4));
      const trained = trainedQueryTokens((lm.model as unknown as { config?: unknown }).config);
      const budget = trained === null ? fit : Math.min(fit, trained);
      return { kind: 'ids', ids: tinyPromptIds(query, asked(dom), encode, budget) };
    },
    read(rawOutput, dom) {
      const { design: raw, problems } = parseDesignXml(rawOutput, dom === 'auto' ? undefined : dom);
      if (!raw || problems.length > 0)
        return { design: null, errors: problems.map((p) => `parse error: ${p}`) };
      const expanded = expandTinyDesign(raw, pool);
      return expanded.ok
        ? { design: expanded.design, errors: [] }
        : { design: null, errors: expanded.problems };
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
  format: 'tiny' | 'hub' = 'hub',
): {
  fieldTokens: { text: number };
  maxAgents: number;
  maxTokens: number;
} {
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
  const constraint = await createDesignConstraint({
    vocab: ctx.lm.tokenizer as never,
    vocabSize: ctx.lm.vocabSize,
    eosIds: ctx.lm.eosIds,
    format: tiny ? 'tiny' : 'hub',
    dom: asked(ctx.dom),
    ...(tiny ? { roles: tinyRoles(pool) } : {}),
    ...designBudget(ctx.maxNewTokens, tiny ? 'tiny' : 'hub'),
  });
  const { DesignLogitsProcessor } = await import('./constrain/processor.ts');
  return {
    processors: [new DesignLogitsProcessor(constraint)],
    stats: () => ({ ...constraint.stats }),
  };
}
