/**
 * Test helpers for constrained decoding (imported by tests and the mask benchmark only): a small
 * byte-level BPE-style vocabulary with tokens that cross the design's boundaries, and an
 * "adversarial model" that fills logits at random and leans toward the tokens that end fields.
 */
import { createRng } from '../../core/rng.ts';

/** GPT-2's byte-to-character table: the form byte-level vocabularies store tokens in. */
export function byteLevelString(text: string): string {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const map = new Map<number, string>();
  bs.forEach((b) => map.set(b, String.fromCharCode(b)));
  let n = 0;
  for (let b = 0; b < 256; b++) if (!map.has(b)) map.set(b, String.fromCharCode(256 + n++));
  return [...new TextEncoder().encode(text)].map((b) => map.get(b) as string).join('');
}

/** Multi-byte tokens of the small vocabulary: words, tags, and tokens that straddle tags and ids. */
const PIECES = [
  '<',
  '</',
  '>',
  '><',
  '>\n',
  '\n',
  '\n\n',
  '    ',
  '  ',
  ' ',
  '\t',
  '<thinking>',
  '</thinking>',
  'thinking',
  '<agent>',
  '</agent>',
  'agent',
  '_id',
  '<agent_id>',
  '</agent_id>',
  '_id>',
  '>a',
  '>s',
  'name',
  '<agent_name>',
  '</agent_name>',
  'CoT',
  'Agent',
  'CoTAgent',
  'DebateAgent',
  'SCAgent',
  'Debate',
  '_description',
  '<agent_description>',
  '</agent_description>',
  'required',
  '_arguments',
  '<required_arguments>',
  '</required_arguments>',
  '<agent_input>',
  '</agent_input>',
  '_input',
  '${',
  '}$',
  '}${',
  '${s',
  '${a',
  '}',
  '{',
  '$',
  '$$',
  '${solver',
  'solver',
  'solver-',
  'solver-1',
  '-1',
  '-2',
  '-3',
  '1}',
  '2}',
  'a}',
  'b}',
  '<edge>',
  '</edge>',
  '<edge></edge>',
  '<edge>\n',
  '<from>',
  '</from>',
  '<to>',
  '</to>',
  '</from><to>',
  '</to>\n',
  '    <from>',
  '<debate_roles>',
  '</debate_roles>',
  '["',
  '", "',
  '"]',
  '"',
  ',',
  '[',
  ']',
  'Pro',
  'Con',
  'pro',
  ' Pro',
  'a',
  'b',
  'ab',
  'abc',
  'x',
  'solve',
  '_a',
  '_b',
  'the',
  ' the',
  ' of',
  ' and',
  ' answer',
  ' step',
  ' question',
  '&',
  '&amp;',
  '&#36;',
  'é',
  '日本',
  ' 2',
  '42',
  '+',
  '=',
  'Solver',
  'Debate Panel',
  'debate',
  'debate-panel',
  '-panel-',
  'Critic',
  'critic-',
  'Consensus',
  ' Solver',
  '</thinking><agent>',
  '</agent><agent>',
  '</agent><edge>',
  '</agent_input></required_arguments></agent>',
];

export interface SmallVocab {
  vocab: string[];
  eos: number;
  special: number[];
}

/** Every byte as a token (ids 0..255), the pieces above, then one special end token. */
export function smallVocab(): SmallVocab {
  const vocab: string[] = [];
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  let n = 0;
  for (let b = 0; b < 256; b++)
    vocab[b] = bs.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);
  const seen = new Set(vocab);
  for (const p of PIECES) {
    const s = byteLevelString(p);
    if (!seen.has(s)) {
      seen.add(s);
      vocab.push(s);
    }
  }
  vocab.push('<|end|>');
  return { vocab, eos: vocab.length - 1, special: [vocab.length - 1] };
}

/** Token ids whose bit is set in a mask. */
export function allowedIds(mask: Int32Array): number[] {
  const out: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    let w = mask[i] as number;
    while (w !== 0) {
      const bit = 31 - Math.clz32(w & -w);
      w &= w - 1;
      out.push((i << 5) | bit);
    }
  }
  return out;
}

/**
 * Random logits: Gaussian noise plus, for tokens that hold a byte of `lean`, a per-run bias, so
 * runs differ in how eagerly they close fields, open references and add agents.
 */
export function adversarialLogits(size: number, seed: number, leaning: Uint8Array): () => Float32Array {
  const r = createRng(seed);
  const rng = (): number => r.next();
  const bias = rng() * 6;
  return () => {
    const out = new Float32Array(size);
    for (let t = 0; t < size; t++) {
      const u = Math.max(rng(), 1e-12);
      out[t] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng()) * 2 + (leaning[t] ? bias : 0);
    }
    return out;
  };
}

/** Argmax of logits (after `apply`, a sample among allowed tokens: the logits are random). */
export function argmax(logits: Float32Array): number {
  let best = 0;
  for (let t = 1; t < logits.length; t++) if ((logits[t] as number) > (logits[best] as number)) best = t;
  return best;
}

const popcount = (w: number): number => {
  let x = w - ((w >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
};

/**
 * A token drawn uniformly among the set bits of `mask AND filter` (or of `mask` when `filter` is
 * null or leaves nothing), without allocating: a sampler for benchmarks over large vocabularies.
 * `u` is uniform in [0, 1).
 */
export function sampleAllowed(mask: Int32Array, filter: Int32Array | null, u: number): number {
  const word = (i: number, f: Int32Array | null): number => (mask[i] as number) & (f ? (f[i] as number) : -1);
  let f = filter;
  let total = 0;
  for (let i = 0; i < mask.length; i++) total += popcount(word(i, f));
  if (total === 0 && f) {
    f = null;
    for (let i = 0; i < mask.length; i++) total += popcount(word(i, f));
  }
  if (total === 0) return -1;
  let k = Math.floor(u * total);
  for (let i = 0; i < mask.length; i++) {
    let w = word(i, f);
    const c = popcount(w);
    if (k >= c) {
      k -= c;
      continue;
    }
    while (k > 0) {
      w &= w - 1;
      k--;
    }
    return (i << 5) | (31 - Math.clz32(w & -w));
  }
  return -1;
}
