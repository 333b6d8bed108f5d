import { describe, expect, it } from 'vitest';
import { Tensor } from '@huggingface/transformers';
import { parseDesign } from '../../design/parse.ts';
import { createDesignConstraint } from './engine.ts';
import { DesignLogitsProcessor } from './processor.ts';
import { adversarialLogits, allowedIds, argmax, smallVocab } from './testing.ts';
import { buildVocab } from './vocab.ts';
import { fillNextTokenBitmask, loadXgrammar } from './xgrammar.ts';

const small = smallVocab();

describe('web-xgrammar without awaiting each step', () => {
  it('reads the wasm memory, and the synchronous mask equals getNextTokenBitmask() at every step', async () => {
    const loaded = await loadXgrammar();
    expect(loaded.memory).toBeInstanceOf(WebAssembly.Memory);
    const { xg } = loaded;
    const info = await xg.TokenizerInfo.createTokenizerInfo(
      small.vocab,
      'byte_level',
      false,
      small.vocab.length,
      [small.eos],
    );
    const compiler = await xg.GrammarCompiler.createGrammarCompiler(info);
    const compiled = await compiler.compileGrammar('root ::= "<a>" [a-z ]* "</a>" [0-9]+');
    const matcher = await xg.GrammarMatcher.createGrammarMatcher(compiled);
    const sync = new Int32Array(Math.ceil(small.vocab.length / 32));
    let steps = 0;
    let k = 0;
    while (!matcher.isTerminated() && steps++ < 60) {
      fillNextTokenBitmask(loaded, matcher, small.vocab.length, sync);
      const expected = await matcher.getNextTokenBitmask();
      expect(Array.from(sync)).toEqual(Array.from(expected));
      const ids = allowedIds(sync);
      expect(ids.length).toBeGreaterThan(0);
      // Walk along varied allowed tokens, ending once the digits may stop.
      const pick =
        steps > 12 && ids.includes(small.eos)
          ? small.eos
          : (ids[(k = (k * 31 + 7) % 9973) % ids.length] as number);
      expect(matcher.acceptToken(pick)).toBe(true);
    }
    expect(matcher.isTerminated()).toBe(true);
  });

  it('DesignConstraint.mask() is synchronous: it returns a mask, not a promise', async () => {
    const c = await createDesignConstraint({
      vocab: small.vocab,
      specialIds: small.special,
      eosIds: [small.eos],
      format: 'hub',
      dom: 'high',
    });
    const m = c.mask();
    expect(m).toBeInstanceOf(Int32Array);
    expect(allowedIds(m).length).toBeGreaterThan(1);
  });
});

describe('DesignLogitsProcessor', () => {
  it('learns each sampled token from input_ids on the next call and masks the logits in place', async () => {
    const c = await createDesignConstraint({
      vocab: small.vocab,
      specialIds: small.special,
      eosIds: [small.eos],
      format: 'tiny',
      dom: 'high',
      roles: [
        { name: 'Solver', agentType: 'CoTAgent' },
        { name: 'Critic', agentType: 'CoTAgent' },
      ],
      maxAgents: 3,
      fieldTokens: { text: 5 },
    });
    const processor = new DesignLogitsProcessor(c);
    const V = c.vocabSize;
    const prompt = [5n, 6n, 7n];
    const ids: bigint[] = [...prompt];
    const logitsOf = adversarialLogits(V, 3, new Uint8Array(V));
    // The loop transformers.js' generate runs: processors, then the sampler, then append.
    for (let step = 0; step < 2000; step++) {
      const logits = new Tensor('float32', logitsOf(), [1, V]);
      const out = processor([ids], logits) as Tensor;
      const row = (out as unknown as Tensor[])[0] as Tensor;
      const next = argmax(row.data as Float32Array);
      if (next === small.eos) break;
      ids.push(BigInt(next));
    }
    expect(c.complete).toBe(true);
    expect(c.done).toBe(false);
    // What the processor fed the constraint is exactly what was sampled after the prompt.
    const v = buildVocab(small.vocab, { specialIds: small.special });
    const sampled = ids.slice(prompt.length).map((t) => Number(t));
    const bytes = sampled.flatMap((t) => [
      ...v.bytes.subarray(v.offsets[t] as number, v.offsets[t + 1] as number),
    ]);
    expect(new TextDecoder().decode(Uint8Array.from(bytes))).toBe(c.text());
    expect(c.text()).toMatch(/<\/edge>$/);
    const r = parseDesign(c.text(), 'high');
    expect(r.problems).toEqual([]);
    expect(r.violations).toEqual([]);
    expect(c.stats.steps).toBe(ids.length - prompt.length + 1);
  });
});
