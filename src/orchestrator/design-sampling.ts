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
import {
  TINY_SPECIAL_TOKENS,
  TINY_TOKENS,
  expandTinyDesign,
  tinyPromptIds,
  tinyRoles,
} from './tiny-format.ts';

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

/** The tiny format (format `tiny`) for a model's tokenizer. */
export function tinyDesignSampling(o: {
  tokenizer: TinyTokenizer;
  vocabSize: number;
  maxQueryTokens: number;
  pool: RolePool;
}): DesignSampling {
  const tok = o.tokenizer;
  const endId = tok.idOf(TINY_TOKENS.end);
  for (const t of [TINY_TOKENS.domLow, TINY_TOKENS.domHigh, TINY_TOKENS.design, TINY_TOKENS.end])
    if (tok.idOf(t) === undefined)
      throw new Error(`the tokenizer has no ${t} token: not a tiny-format model`);
  const specialIds = TINY_SPECIAL_TOKENS.map((t) => tok.idOf(t)).filter((i): i is number => i !== undefined);
  const roles = tinyRoles(o.pool);
  return {
    endId: endId as number,
    promptIds: (query, dom) => tinyPromptIds(query, dom, (t) => tok.encode(t), o.maxQueryTokens),
    constraint: (dom, maxTokens) =>
      createDesignConstraint({
        vocab: tok.tokens,
        vocabType: 'byte_level',
        vocabSize: o.vocabSize,
        eosIds: [endId as number],
        specialIds,
        format: 'tiny',
        dom,
        roles,
        maxTokens,
      }),
    read: (text, dom) => {
      const { design: raw, problems } = parseDesignXml(text, dom);
      if (!raw || problems.length > 0)
        return { design: null, problems: problems.map((p) => `parse error: ${JSON.stringify(p)}`) };
      const ex = expandTinyDesign(raw, o.pool);
      return ex.ok ? { design: ex.design, problems: [] } : { design: null, problems: ex.problems };
    },
  };
}
