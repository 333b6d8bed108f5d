/**
 * Rollouts of the orchestrator LM: for each query (a MASBench task in one Degree of MAS), G designs
 * decoded under constrained decoding (src/orchestrator/constrain), so that every finished sample is
 * a design `parseDesignXml` reads and `expandTinyDesign` expands. All sequences of a call decode
 * together, one batched step of the KV-cache decoder per token (orchestrator-decode.ts, the CPU
 * backend's arithmetic); a query's prompt is run once and its cache copied to its G samples.
 *
 * Per generated token the sample records the token, its log-probability under the masked
 * distribution sampling drew from (log softmax(logits/τ) over the allowed tokens), whether it was
 * forced (exactly one token allowed: no choice, so no gradient) and the allowed-token bitmask the
 * learner needs to score the same distribution. Seeded: one Rng draws every token.
 */
import type { Rng } from '../core/rng.ts';
import type { Design } from '../core/trace.ts';
import type { MasBenchTask } from '../masbench/index.ts';
import type { Decoder } from './orchestrator-decode.ts';
import { maskedLogSoftmax, type SequenceCache } from './orchestrator-decode.ts';

export type Dom = 'low' | 'high';

export interface Query {
  task: MasBenchTask;
  dom: Dom;
}

export interface Sample {
  query: Query;
  /** Index of the query in the call (the group). */
  group: number;
  prompt: number[];
  /** Generated tokens, the end token included when the design finished. */
  tokens: number[];
  /** log π(token) under the masked distribution at τ (f32 values, as the learner computes them). */
  logp: Float32Array;
  /** 1 where only one token was allowed. */
  forced: Uint8Array;
  /** Allowed-token bitmask of each generated position (words of 32 bits). */
  masks: Int32Array[];
  /** The design text (end token excluded). */
  text: string;
  /** The expanded design, or null with the problems when it did not read (not expected: constrained). */
  design: Design | null;
  problems: string[];
}

/** The part of constrained decoding the sampler drives (src/orchestrator's `DesignConstraint`). */
export interface SamplingConstraint {
  /** Allowed tokens for the next step: bit i%32 of word i>>5; valid until the next `accept`. */
  mask(): Int32Array;
  accept(tokenId: number): void;
  readonly done: boolean;
  text(): string;
}

/**
 * A prompt format as the sampler uses it (src/orchestrator's `DesignSampling`, e.g.
 * `tinyDesignSampling`): injected, so the trainer knows no format.
 */
export interface SamplingFormat {
  promptIds(query: string, dom: Dom): number[];
  constraint(dom: Dom, maxTokens: number): Promise<SamplingConstraint>;
  read(text: string, dom: Dom): { design: Design | null; problems: string[] };
}

export interface SampleOptions {
  decoder: Decoder;
  format: SamplingFormat;
  queries: readonly Query[];
  /** Samples per query. */
  group: number;
  temperature: number;
  /** Argmax instead of sampling (held-out evaluation). */
  greedy: boolean;
  rng: Rng;
  maxNewTokens: number;
}

const popcount = (mask: Int32Array): { count: number; first: number } => {
  let count = 0;
  let first = -1;
  for (let w = 0; w < mask.length; w++) {
    let x = (mask[w] as number) >>> 0;
    while (x !== 0) {
      const bit = 31 - Math.clz32(x & -x);
      if (first < 0) first = w * 32 + bit;
      count++;
      x &= x - 1;
    }
  }
  return { count, first };
};

function pickToken(logp: Float32Array, mask: Int32Array, greedy: boolean, rng: Rng): number {
  let best = -1;
  if (greedy) {
    for (let v = 0; v < logp.length; v++)
      if ((((mask[v >>> 5] as number) >>> (v & 31)) & 1) === 1 && (best < 0 || logp[v]! > logp[best]!))
        best = v;
    return best;
  }
  const u = rng.next();
  let total = 0;
  for (let v = 0; v < logp.length; v++)
    if ((((mask[v >>> 5] as number) >>> (v & 31)) & 1) === 1) total += Math.exp(logp[v] as number);
  let acc = 0;
  for (let v = 0; v < logp.length; v++) {
    if ((((mask[v >>> 5] as number) >>> (v & 31)) & 1) === 0) continue;
    best = v;
    acc += Math.exp(logp[v] as number);
    if (acc >= u * total) break;
  }
  return best;
}

/** Decodes G designs per query; samples come out query by query, G each, in order. */
export async function sampleDesigns(o: SampleOptions): Promise<Sample[]> {
  const { decoder } = o;
  const nPos = decoder.config.nPositions;
  const prompts = o.queries.map((q) => o.format.promptIds(q.task.question, q.dom));
  for (const p of prompts)
    if (p.length >= nPos)
      throw new Error(`a prompt of ${p.length} tokens leaves no room in ${nPos} positions`);
  // One prefill per query (all prompts in one call), its cache copied to the G samples.
  decoder.reset();
  const base = prompts.map(() => decoder.newSequence());
  const rowSeq: SequenceCache[] = [];
  const rowIds: number[] = [];
  const last: number[] = [];
  prompts.forEach((p, qi) => {
    for (const id of p) {
      rowSeq.push(base[qi] as SequenceCache);
      rowIds.push(id);
    }
    last.push(rowIds.length - 1);
  });
  const V = decoder.config.vocabSize;
  const first = decoder.step(rowSeq, rowIds, last);
  const samples: Sample[] = [];
  const caches: SequenceCache[] = [];
  const constraints: SamplingConstraint[] = [];
  const logits: Float32Array[] = [];
  for (let qi = 0; qi < o.queries.length; qi++) {
    const q = o.queries[qi] as Query;
    const prompt = prompts[qi] as number[];
    const budget = Math.min(o.maxNewTokens, nPos - prompt.length);
    for (let g = 0; g < o.group; g++) {
      samples.push({
        query: q,
        group: qi,
        prompt,
        tokens: [],
        logp: new Float32Array(budget),
        forced: new Uint8Array(budget),
        masks: [],
        text: '',
        design: null,
        problems: [],
      });
      caches.push(g === o.group - 1 ? (base[qi] as SequenceCache) : decoder.fork(base[qi] as SequenceCache));
      constraints.push(await o.format.constraint(q.dom, budget));
      logits.push(first.subarray(qi * V, (qi + 1) * V));
    }
  }
  let active = samples.map((_, i) => i);
  while (active.length > 0) {
    const next: number[] = [];
    const ids: number[] = [];
    for (const i of active) {
      const s = samples[i] as Sample;
      const c = constraints[i] as SamplingConstraint;
      const mask = c.mask().slice();
      const lp = maskedLogSoftmax(logits[i] as Float32Array, mask, o.temperature);
      const { count, first: only } = popcount(mask);
      if (count === 0) throw new Error('constrained decoding allowed no token');
      const tok = count === 1 ? only : pickToken(lp, mask, o.greedy, o.rng);
      const k = s.tokens.length;
      s.tokens.push(tok);
      s.logp[k] = lp[tok] as number;
      s.forced[k] = count === 1 ? 1 : 0;
      s.masks.push(mask);
      c.accept(tok);
      const full = s.prompt.length + s.tokens.length >= nPos || s.tokens.length >= s.logp.length;
      if (!c.done && !full) {
        next.push(i);
        ids.push(tok);
      }
    }
    if (next.length > 0) {
      const out = decoder.step(
        next.map((i) => caches[i] as SequenceCache),
        ids,
        next.map((_, r) => r),
      );
      next.forEach((i, r) => (logits[i] = out.subarray(r * V, (r + 1) * V)));
    }
    active = next;
  }
  samples.forEach((s, i) => {
    const c = constraints[i] as SamplingConstraint;
    s.logp = s.logp.slice(0, s.tokens.length);
    s.forced = s.forced.slice(0, s.tokens.length);
    s.text = c.text();
    const r = o.format.read(s.text, s.query.dom);
    s.design = r.design;
    s.problems = r.problems;
  });
  return samples;
}
