/**
 * What a trainer that samples designs from the tiny model needs of its prompt format, in one
 * object: the prompt ids of a query, the constraint its design is decoded under, and how the
 * decoded text reads back as a design. The GRPO trainer (src/train/orchestrator-*.ts) takes it
 * injected, so it knows no format; a new format version supplies its own.
 */
import type { Design } from '../core/trace.ts';
import { parseDesignXml } from '../design/xml.ts';
import type { RolePool } from '../policy/index.ts';
import { createDesignConstraint, type DesignConstraint } from './constrain/engine.ts';
import { designBudget } from './formats.ts';
import {
  TINY_SPECIAL_TOKENS,
  TINY_TOKENS,
  expandTinyDesign,
  tinyPromptIds,
  tinyRoles,
} from './tiny-format.ts';
import { readTiny2, tiny2Roles } from './tiny2-format.ts';

export interface DesignSampling {
  promptIds(query: string, dom: 'low' | 'high'): number[];
  /** A fresh constraint for one design of at most `maxTokens` tokens (the end token included). */
  constraint(dom: 'low' | 'high', maxTokens: number): Promise<DesignConstraint>;
  /** The design a finished text describes, or the problems. */
  read(text: string, dom: 'low' | 'high'): { design: Design | null; problems: string[] };
  /** The end token. */
  readonly endId: number;
}

export interface TinyTokenizer {
  readonly tokens: readonly string[];
  encode(text: string): number[];
  idOf(token: string): number | undefined;
}

/**
 * The tiny format for a model's tokenizer: version 1 (`tiny`, the default: the query's last
 * `maxQueryTokens` tokens, roles of the pool) or version 2 (`tiny2`, tiny2-format.ts: the whole
 * query, the plan stated in the thinking, archive agents as roles, and in low DoM the direct answer
 * with no agent). A folder says which (`tinyVersionOf` of its config.json).
 */
export function tinyDesignSampling(o: {
  tokenizer: TinyTokenizer;
  vocabSize: number;
  maxQueryTokens: number;
  pool: RolePool;
  format?: 'tiny' | 'tiny2';
}): DesignSampling {
  const v2 = o.format === 'tiny2';
  const tok = o.tokenizer;
  const endId = tok.idOf(TINY_TOKENS.end);
  for (const t of [TINY_TOKENS.domLow, TINY_TOKENS.domHigh, TINY_TOKENS.design, TINY_TOKENS.end])
    if (tok.idOf(t) === undefined)
      throw new Error(`the tokenizer has no ${t} token: not a tiny-format model`);
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t)).filter((i): i is number => i !== undefined);
  const roles = v2 ? tiny2Roles(o.pool) : tinyRoles(o.pool);
  // Version 2 reads the whole query (its positions hold the longest one; the sampler checks the fit).
  const maxQuery = v2 ? Number.POSITIVE_INFINITY : o.maxQueryTokens;
  return {
    endId: endId as number,
    promptIds: (query, dom) => tinyPromptIds(query, dom, (t) => tok.encode(t), maxQuery),
    constraint: (dom, maxTokens) =>
      createDesignConstraint({
        vocab: tok.tokens,
        vocabType: 'byte_level',
        vocabSize: o.vocabSize,
        eosIds: [endId as number],
        specialIds,
        format: v2 ? 'tiny2' : 'tiny',
        dom,
        roles,
        ...(v2 ? designBudget(maxTokens, 'tiny2') : {}),
        maxTokens,
      }),
    read: (text, dom) => {
      if (v2) {
        const r = readTiny2(text, dom, o.pool);
        return r.ok ? { design: r.design, problems: [] } : { design: null, problems: r.problems };
      }
      const { design: raw, problems } = parseDesignXml(text, dom);
      if (!raw || problems.length > 0)
        return { design: null, problems: problems.map((p) => `parse error: ${JSON.stringify(p)}`) };
      const ex = expandTinyDesign(raw, o.pool);
      return ex.ok ? { design: ex.design, problems: [] } : { design: null, problems: ex.problems };
    },
  };
}
