import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL } from '../../policy/index.ts';
import { planNotes, readTiny2, tiny2PlanText, tiny2Roles, type Tiny2Plan } from '../tiny2-format.ts';
import { createDesignConstraint } from './engine.ts';
import { adversarialLogits, argmax, smallVocab } from './testing.ts';
import { buildVocab } from './vocab.ts';

const small = smallVocab();
const ROLES = tiny2Roles(DEFAULT_POOL).map((r) => ({ name: r.name, agentType: r.agentType }));

function leaningOf(vocab: readonly string[]): Uint8Array {
  const v = buildVocab(vocab);
  const out = new Uint8Array(vocab.length);
  for (let t = 0; t < vocab.length; t++) {
    const bytes = v.bytes.subarray(v.offsets[t] as number, v.offsets[t + 1] as number);
    for (const b of bytes) if ('<$"],{}'.includes(String.fromCharCode(b))) out[t] = 1;
  }
  return out;
}

const make = (dom: 'low' | 'high', text: number, maxTokens?: number) =>
  createDesignConstraint({
    vocab: small.vocab,
    specialIds: small.special,
    eosIds: [small.eos],
    format: 'tiny2',
    dom,
    roles: ROLES,
    maxAgents: 4,
    fieldTokens: { text },
    ...(maxTokens !== undefined ? { maxTokens } : {}),
  });

const sv = buildVocab(small.vocab);

/** Writes `text` through the constraint: at each step the longest allowed token that spells its next bytes. */
function feed(c: Awaited<ReturnType<typeof make>>, text: string): void {
  const want = new TextEncoder().encode(text);
  let at = 0;
  while (at < want.length) {
    const m = c.mask();
    let best = -1;
    let len = 0;
    for (let t = 0; t < small.vocab.length; t++) {
      if ((((m[t >> 5] as number) >>> (t & 31)) & 1) === 0) continue;
      const b = sv.bytes.subarray(sv.offsets[t] as number, sv.offsets[t + 1] as number);
      if (b.length <= len || at + b.length > want.length) continue;
      if (b.every((x, i) => want[at + i] === x)) {
        best = t;
        len = b.length;
      }
    }
    if (best < 0) throw new Error(`refused at ${JSON.stringify(text.slice(0, at))}`);
    c.accept(best);
    at += len;
  }
}

describe('tiny2 constrained decoding', () => {
  const leaning = leaningOf(small.vocab);
  for (const dom of ['low', 'high'] as const) {
    it(`DoM ${dom}: 40 adversarial runs all end in a v2 design that reads and validates`, async () => {
      const branches = new Set<string>();
      let most = 0;
      for (let seed = 1; seed <= 40; seed++) {
        const c = await make(dom, 4 + (seed % 6));
        const logitsOf = adversarialLogits(c.vocabSize, seed, leaning);
        let steps = 0;
        while (!c.done) {
          if (steps++ > 4000) throw new Error(`no end: ${c.text().slice(-200)}`);
          c.accept(argmax(c.apply(logitsOf())));
        }
        const r = readTiny2(c.text(), dom, DEFAULT_POOL);
        expect({ seed, problems: r.ok ? [] : r.problems }).toEqual({ seed, problems: [] });
        if (r.ok) {
          branches.add(r.branch);
          most = Math.max(most, r.design.agents.length);
        }
      }
      if (dom === 'high') {
        expect([...branches]).toEqual(['mas']);
        expect(most).toBeGreaterThan(1);
      } else {
        // Both of MAS-Orchestra's low-DoM branches are reachable under the constraint.
        expect([...branches].sort()).toEqual(['delegate', 'direct']);
        expect(most).toBe(1);
      }
    });
  }

  it('accepts the texts the training script writes, token by token, and ends exactly there', async () => {
    const plans: Tiny2Plan[] = [
      { dom: 'low', agents: [], direct: '' },
      { dom: 'low', agents: [{ role: 'CoT', links: [] }] },
      {
        dom: 'high',
        agents: [
          { role: 'Planner', links: [] },
          { role: 'Solver', links: [0] },
          { role: 'Solver', links: [0] },
          { role: 'Summarizer', links: [1, 2] },
        ],
      },
    ];
    for (const plan of plans) {
      const text = tiny2PlanText(
        plan,
        planNotes(plan, DEFAULT_POOL, { axis: 'parallel', value: 2 }),
        DEFAULT_POOL,
      );
      const c = await make(plan.dom, 400);
      feed(c, text);
      expect(c.complete).toBe(true);
      expect(c.text()).toBe(text);
    }
  });

  it('refuses what v2 forbids: a direct answer in high DoM, a second agent in low DoM', async () => {
    const hi = await make('high', 50);
    expect(() => feed(hi, '<thinking>x</thinking><answer>')).toThrow(/refused/);
    const low = await make('low', 50);
    feed(low, '<thinking>x</thinking><answer>7</answer>');
    expect(low.complete).toBe(true);
    const two = await make('low', 50);
    const one =
      '<thinking>x</thinking><agent><agent_id>cot-1</agent_id><agent_name>CoTAgent</agent_name><agent_description>CoT</agent_description><required_arguments><agent_input></agent_input></required_arguments></agent>';
    feed(two, one);
    expect(() => feed(two, '<agent>')).toThrow(/refused/);
    feed(two, '<edge></edge>');
    expect(two.complete).toBe(true);
  });

  it('a tight budget forces a complete design within it', async () => {
    for (const dom of ['low', 'high'] as const) {
      const c = await make(dom, 50, 120);
      const logitsOf = adversarialLogits(c.vocabSize, 9, leaningOf(small.vocab));
      let steps = 0;
      while (!c.done) {
        steps++;
        c.accept(argmax(c.apply(logitsOf())));
      }
      expect(steps).toBeLessThanOrEqual(120);
      const r = readTiny2(c.text(), dom, DEFAULT_POOL);
      expect(r.ok).toBe(true);
    }
  });
});
