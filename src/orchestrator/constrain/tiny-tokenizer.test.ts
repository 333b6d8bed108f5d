/**
 * The constraint against the tiny model's own tokenizer (models/baton-orchestrator-tiny): a valid
 * design, tokenized the way the model writes it (every XML tag one added token), must be allowed
 * token by token; forcing a shorter token (`<` where the model writes `<agent>`) puts the model
 * off track.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tokenizerFromJson } from '../../lm/index.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import { parseDesign } from '../../design/parse.ts';
import { expandTinyDesign, tinyAgentId, tinyRoles, type TinyRole } from '../tiny-format.ts';
import { createDesignConstraint } from './engine.ts';
import { adversarialLogits, allowedIds, argmax } from './testing.ts';

const PATH = 'models/baton-orchestrator-tiny/tokenizer.json';
const ROLES = tinyRoles(DEFAULT_POOL);

/** A tiny design: agents in `order` (indexes into the roles), agent k referencing `refs[k]`. */
function design(order: number[], refs: number[][]): string {
  const rs = order.map((i) => ROLES[i] as TinyRole);
  const id = (k: number): string => tinyAgentId(k, (rs[k] as TinyRole).name);
  let s = `<thinking>${rs.map((r) => r.name).join(', ')}</thinking>`;
  rs.forEach((r, k) => {
    const input = (refs[k] ?? []).map((j) => `\${${id(j)}}`).join('');
    s += `<agent><agent_id>${id(k)}</agent_id><agent_name>${r.agentType}</agent_name><agent_description>${r.name}</agent_description><required_arguments><agent_input>${input}</agent_input></required_arguments></agent>`;
  });
  s += '<edge>';
  rs.forEach((_, k) => {
    for (const j of refs[k] ?? []) s += `<from>${id(j)}</from><to>${id(k)}</to>`;
  });
  return `${s}</edge>`;
}

describe.skipIf(!existsSync(PATH))('constrained decoding with the tiny model tokenizer', () => {
  it('allows every token of valid designs as the tokenizer writes them, whole tags at a branch included', async () => {
    const parsed = tokenizerFromJson(readFileSync(PATH, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    const tok = parsed.tokenizer;
    const eos = tok.tokens.indexOf('<|end|>');
    const special = tok.tokens.flatMap((t, i) => (/^<\|.*\|>$/.test(t) ? [i] : []));
    const cases: { dom: 'low' | 'high'; text: string }[] = [
      { dom: 'low', text: design([2], []) },
      { dom: 'low', text: design([7], []) },
      { dom: 'high', text: design([0, 1], [[], [0]]) },
      { dom: 'high', text: design([0, 1, 2, 10], [[], [0], [0, 1], [2]]) },
      { dom: 'high', text: design([8, 9, 4, 5, 6], [[], [], [0, 1], [2], [3]]) },
    ];
    let branchTags = 0;
    for (const { dom, text } of cases) {
      const c = await createDesignConstraint({
        vocab: tok.tokens,
        specialIds: special,
        eosIds: [eos],
        format: 'tiny',
        dom,
        roles: ROLES,
      });
      const ids = tok.encode(text);
      expect(tok.decode(ids)).toBe(text);
      for (const [k, t] of ids.entries()) {
        const allowed = allowedIds(c.mask());
        expect({ at: k, token: tok.tokens[t], allowed: allowed.includes(t) }).toEqual({
          at: k,
          token: tok.tokens[t],
          allowed: true,
        });
        if (allowed.length > 1 && /^<\/?[a-z_]+>$/.test(tok.tokens[t] as string)) branchTags++;
        c.accept(t);
      }
      expect(c.complete).toBe(true);
      expect(allowedIds(c.mask())).toEqual([eos]);
    }
    // Whole tags were allowed where the model had a choice (another agent or the edge block).
    expect(branchTags).toBeGreaterThanOrEqual(3);
  });

  it('random-logit decoding under tight budgets: every output is a valid design within the budget', async () => {
    const parsed = tokenizerFromJson(readFileSync(PATH, 'utf8'));
    if (!parsed.ok) throw new Error(parsed.message);
    const tok = parsed.tokenizer;
    const eos = tok.tokens.indexOf('<|end|>');
    const special = tok.tokens.flatMap((t, i) => (/^<\|.*\|>$/.test(t) ? [i] : []));
    const leaning = new Uint8Array(tok.tokens.length);
    tok.tokens.forEach((t, i) => {
      if (t === '<agent>' || t.includes(',')) leaning[i] = 1;
    });
    let runs = 0;
    for (const dom of ['low', 'high'] as const) {
      const make = (maxTokens?: number) =>
        createDesignConstraint({
          vocab: tok.tokens,
          specialIds: special,
          eosIds: [eos],
          format: 'tiny',
          dom,
          roles: ROLES,
          ...(maxTokens === undefined ? {} : { maxTokens }),
        });
      const fresh = (await make()) as unknown as { need(w: unknown): number; writer: unknown };
      const least = fresh.need(fresh.writer);
      for (const extra of [0, 1, 2, 4, 8, 16, 32, 64, 128]) {
        for (let seed = 1; seed <= 6; seed++) {
          const budget = least + extra;
          const c = await make(budget);
          const logitsOf = adversarialLogits(c.vocabSize, seed * 97 + extra, leaning);
          let steps = 0;
          while (!c.done && steps <= budget) {
            c.accept(argmax(c.apply(logitsOf())));
            steps++;
          }
          const r = parseDesign(c.text(), dom);
          const expanded = r.raw ? expandTinyDesign(r.raw, DEFAULT_POOL) : null;
          expect({
            dom,
            budget,
            seed,
            done: c.done,
            within: steps <= budget,
            p: r.problems,
            ok: expanded?.ok,
          }).toEqual({ dom, budget, seed, done: true, within: true, p: [], ok: true });
          runs++;
        }
      }
    }
    expect(runs).toBe(108);
  });
});
