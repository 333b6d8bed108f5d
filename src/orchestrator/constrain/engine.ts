/**
 * The constraint engine: every step's allowed tokens are XGrammar's syntax mask (grammar.ts,
 * compiled once per tokenizer and grammar) intersected with the writer's semantic mask (writer.ts).
 *
 * The semantic mask never scans the vocabulary. In a free field (text, a new id, a role name) only
 * tokens holding a byte that can change the writer's state (`<`, `$`, `&`, `"`…) can break a rule;
 * they come from a bitmask precomputed per vocabulary, ANDed word by word with the grammar mask, and
 * only the few survivors are run through a copy of the writer. Everywhere else (tags, choices,
 * references, whitespace) the allowed set is small, and it is found by walking the vocabulary's
 * sorted byte order (an implicit trie, vocab.ts) only along bytes the writer accepts; at a choice
 * every token that spells a prefix of some option is allowed (a whole `<agent>` or `<edge>` tag as
 * well as `<`). Where the next text is already determined (a closing tag, the edge block, a tiny
 * agent's name and role) the allowed token is the longest that spells a prefix of it, plus any
 * token that spells all of it and goes on validly; so those steps are forced.
 */
import { designGrammar, type DesignFormat } from './grammar.ts';
import { DesignWriter, type TinyRole } from './writer.ts';
import {
  buildVocab,
  childRange,
  holdingMask,
  longestPrefixToken,
  tokenLength,
  vocabFromTokenizer,
  type TokenizerLike,
  type Vocab,
  type VocabType,
} from './vocab.ts';
import {
  fillNextTokenBitmask,
  loadXgrammar,
  type LoadedXgrammar,
  type XgCompiledGrammar,
  type XgMatcher,
  type XgTokenizerInfo,
} from './xgrammar.ts';
import { AGENT_TYPES } from '../../core/agents.ts';

export interface ConstraintRole {
  name: string;
  agentType: string;
}

export interface DesignConstraintOptions {
  /** Token strings by id as the tokenizer file stores them, or a transformers.js tokenizer. */
  vocab: readonly string[] | TokenizerLike;
  vocabType?: VocabType;
  /** The model's logits width when its output layer is padded past the last token id. */
  vocabSize?: number;
  /** End tokens; the first is the one the engine forces once the design is complete. */
  eosIds: readonly number[];
  /** Special token ids (taken from the tokenizer when one is given); never allowed. */
  specialIds?: readonly number[];
  format: DesignFormat;
  dom: 'low' | 'high';
  /** tiny: the closed role list and each role's archive type (the construction policy's pool). */
  roles?: readonly ConstraintRole[];
  /** hub: the agent names allowed (default: the whole archive). */
  agentNames?: readonly string[];
  /** Most agents in a high-DoM design (default 8). */
  maxAgents?: number;
  /**
   * Most tokens the generation may take, the end token included, counted from the first step (e.g.
   * the least of max_new_tokens and the model's positions left after the prompt). When only about
   * what the cheapest valid completion needs is left, the engine forces that completion, so the
   * design is complete and the end token written within the budget. Default: no limit.
   */
  maxTokens?: number;
  /** Most tokens per free field before the field is closed (defaults: text 256, id 8, ws 4, role 8). */
  fieldTokens?: Partial<{ text: number; id: number; ws: number; role: number }>;
}

export interface ConstraintStats {
  /** Masks computed (decoding steps). */
  steps: number;
  /** Steps (through `apply`) where the unconstrained argmax was not allowed. */
  maskedSteps: number;
  /** Steps with exactly one allowed token. */
  forcedTokens: number;
  /** Milliseconds spent computing masks, in total. */
  maskMs: number;
}

export interface DesignConstraint {
  /** The allowed tokens for the next step: bit i%32 of word i>>5. Valid until the next `accept`. */
  mask(): Int32Array;
  /** Sets every disallowed logit to -Infinity (in place) and returns the array. */
  apply(logits: Float32Array): Float32Array;
  /** Feeds the sampled token; throws when it was not allowed. */
  accept(tokenId: number): void;
  /** True once an end token was accepted after a complete design. */
  readonly done: boolean;
  /** True when the design is complete (only an end token may follow). */
  readonly complete: boolean;
  readonly stats: ConstraintStats;
  readonly vocabSize: number;
  /** The text accepted so far (end token excluded). */
  text(): string;
}

interface Prepared {
  vocab: Vocab;
  loaded: LoadedXgrammar;
  info: XgTokenizerInfo;
  grammars: Map<string, Promise<XgCompiledGrammar>>;
}

const prepared = new WeakMap<readonly string[], Map<string, Promise<Prepared>>>();

async function prepare(encoded: readonly string[], vocab: Vocab, eos: readonly number[]): Promise<Prepared> {
  const loaded = await loadXgrammar();
  const info = await loaded.xg.TokenizerInfo.createTokenizerInfo(
    [...encoded],
    vocab.type,
    false,
    vocab.size,
    [...eos],
  );
  return { vocab, loaded, info, grammars: new Map() };
}

const DEFAULT_FIELDS = { text: 256, id: 8, ws: 4, role: 8 };

/** The id stem of a role name, as the construction policy writes ids (`<slug>-<n>`). */
export function roleSlug(name: string): string {
  return (
    name
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'agent'
  );
}

/**
 * Builds a constraint for one generation. The tokenizer info and the compiled grammar are cached per
 * vocabulary, so only the first constraint for a tokenizer pays for them.
 */
export async function createDesignConstraint(opts: DesignConstraintOptions): Promise<DesignConstraint> {
  let encoded: readonly string[];
  let specialIds = opts.specialIds ?? [];
  if (Array.isArray(opts.vocab)) encoded = opts.vocab as readonly string[];
  else {
    const tok = opts.vocab as TokenizerLike;
    const cached = fromTokenizer.get(tok);
    const v = cached ?? vocabFromTokenizer(tok);
    fromTokenizer.set(tok, v);
    encoded = v.encoded;
    specialIds = [...new Set([...specialIds, ...v.specialIds])];
  }
  if (opts.eosIds.length === 0) throw new Error('createDesignConstraint needs at least one end token id.');
  const vocabSize = Math.max(opts.vocabSize ?? encoded.length, encoded.length);
  const vocab = buildVocab(encoded, {
    type: opts.vocabType ?? 'byte_level',
    size: vocabSize,
    specialIds: [...specialIds, ...opts.eosIds],
  });
  for (let b = 0x20; b < 0x7f; b++) {
    if (longestPrefixToken(vocab, Uint8Array.of(b)) < 0) {
      throw new Error(
        `The vocabulary has no token for ${JSON.stringify(String.fromCharCode(b))}; constrained decoding needs every printable ASCII character as a token.`,
      );
    }
  }
  const key = `${vocab.type}|${vocab.size}|${[...opts.eosIds].join(',')}`;
  let perVocab = prepared.get(encoded);
  if (!perVocab) {
    perVocab = new Map();
    prepared.set(encoded, perVocab);
  }
  let p = perVocab.get(key);
  if (!p) {
    p = prepare(encoded, vocab, opts.eosIds);
    perVocab.set(key, p);
  }
  const prep = await p;

  const roles: TinyRole[] = (opts.roles ?? []).map((r) => ({ ...r, slug: roleSlug(r.name) }));
  if (opts.format !== 'hub' && roles.length === 0) throw new Error('The tiny format needs a role list.');
  const names =
    opts.agentNames ?? AGENT_TYPES.filter((t) => t !== 'SummarizerAgent' || opts.format === 'hub');
  const ebnf = designGrammar({ format: opts.format, dom: opts.dom, names, roles });
  let compiled = prep.grammars.get(ebnf);
  if (!compiled) {
    compiled = prep.loaded.xg.GrammarCompiler.createGrammarCompiler(prep.info).then((c) =>
      c.compileGrammar(ebnf),
    );
    prep.grammars.set(ebnf, compiled);
  }
  const matcher = await prep.loaded.xg.GrammarMatcher.createGrammarMatcher(await compiled, [...opts.eosIds]);
  const writer = new DesignWriter({
    format: opts.format,
    dom: opts.dom,
    maxAgents: Math.max(1, opts.maxAgents ?? 8),
    names,
    roles,
    fieldTokens: { ...DEFAULT_FIELDS, ...opts.fieldTokens },
  });
  const maxAgents = Math.max(1, opts.maxAgents ?? 8);
  const budget = opts.maxTokens ?? Infinity;
  // One free token can raise the completion's cost by at most this (hub: an id token recurs in the
  // references and edges of the completion); choices are checked one token ahead instead.
  const margin = opts.format === 'hub' ? 4 + 2 * maxAgents : 1;
  return new Engine(prep, matcher, writer, opts.eosIds, budget, margin);
}

const fromTokenizer = new WeakMap<TokenizerLike, { encoded: string[]; specialIds: number[] }>();

const has = (m: Int32Array, t: number): boolean => (((m[t >> 5] as number) >>> (t & 31)) & 1) === 1;
const set = (m: Int32Array, t: number): void => {
  m[t >> 5] = (m[t >> 5] as number) | (1 << (t & 31));
};
const clear = (m: Int32Array, t: number): void => {
  m[t >> 5] = (m[t >> 5] as number) & ~(1 << (t & 31));
};

/** How close to the end of the budget `fitBudget` starts checking tokens one ahead. */
const LOOKAHEAD = 256;

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

class Engine implements DesignConstraint {
  private readonly grammarMask: Int32Array;
  private readonly out: Int32Array;
  private fresh = false;
  private ended = false;
  private readonly chunks: Uint8Array[] = [];
  readonly stats: ConstraintStats = { steps: 0, maskedSteps: 0, forcedTokens: 0, maskMs: 0 };
  readonly vocabSize: number;
  private readonly v: Vocab;
  /** Tokens accepted so far, the end token included. */
  private used = 0;
  /** Once the budget is nearly spent: the rest of the completion being forced. */
  private pinned: Uint8Array | null = null;
  private readonly costs = new Map<string, number>();

  constructor(
    private readonly prep: Prepared,
    private readonly matcher: XgMatcher,
    private readonly writer: DesignWriter,
    private readonly eos: readonly number[],
    private readonly budget: number,
    private readonly margin: number,
  ) {
    this.v = prep.vocab;
    this.vocabSize = this.v.size;
    this.grammarMask = new Int32Array(this.v.words);
    this.out = new Int32Array(this.v.words);
  }

  get done(): boolean {
    return this.ended;
  }

  get complete(): boolean {
    return this.writer.done;
  }

  text(): string {
    const total = this.chunks.reduce((n, c) => n + c.length, 0);
    const all = new Uint8Array(total);
    let at = 0;
    for (const c of this.chunks) {
      all.set(c, at);
      at += c.length;
    }
    return new TextDecoder().decode(all);
  }

  private bytesOf(t: number): Uint8Array {
    return this.v.bytes.subarray(this.v.offsets[t] as number, this.v.offsets[t + 1] as number);
  }

  /** Does the writer accept token t's bytes from state w (w is not changed)? */
  private accepts(w: DesignWriter, t: number, from = 0): boolean {
    const c = w.clone();
    const b = this.bytesOf(t);
    for (let i = from; i < b.length; i++) if (!c.step(b[i] as number)) return false;
    return true;
  }

  mask(): Int32Array {
    if (this.fresh) return this.out;
    const t0 = now();
    const out = this.out;
    out.fill(0);
    if (this.ended) {
      // Nothing may follow the end; keep the end token so a caller that samples once more is harmless.
      set(out, this.eos[0] as number);
    } else if (this.writer.done) {
      set(out, this.eos[0] as number);
    } else {
      fillNextTokenBitmask(this.prep.loaded, this.matcher, this.v.size, this.grammarMask);
      const left = this.budget - this.used;
      // The cheapest completion's cost, once per step (it is the same for both checks below).
      const need = this.pinned === null && Number.isFinite(left) ? this.need(this.writer) : 0;
      if (this.pinned === null && Number.isFinite(left)) {
        if (left - need < this.margin)
          this.pinned = new TextEncoder().encode(this.writer.completion(this.cost));
      }
      if (this.pinned !== null) {
        const t = longestPrefixToken(this.v, this.pinned);
        if (t < 0 || !has(this.grammarMask, t)) throw new Error('The grammar refused the design completion.');
        set(out, t);
      } else {
        this.semanticMask(out);
        if (Number.isFinite(left) && left - need < LOOKAHEAD) this.fitBudget(out, left);
      }
    }
    let count = 0;
    for (let i = 0; i < out.length && count < 2; i++) {
      const w = out[i] as number;
      if (w !== 0) count += (w & (w - 1)) === 0 ? 1 : 2;
    }
    if (count === 0) throw new Error('Constrained decoding reached a state with no allowed token.');
    this.stats.steps++;
    if (count === 1) this.stats.forcedTokens++;
    this.stats.maskMs += now() - t0;
    this.fresh = true;
    return out;
  }

  /** Greedy longest-prefix token count of `s`: what forcing it costs. */
  private readonly cost = (s: string): number => {
    const hit = this.costs.get(s);
    if (hit !== undefined) return hit;
    const b = new TextEncoder().encode(s);
    let n = 0;
    for (let i = 0; i < b.length; n++) {
      const t = longestPrefixToken(this.v, b.subarray(i));
      if (t < 0) throw new Error('The vocabulary cannot spell the design completion.');
      i += tokenLength(this.v, t);
    }
    if (this.costs.size > 4096) this.costs.clear();
    this.costs.set(s, n);
    return n;
  };

  /** Tokens a writer in state w still needs: its cheapest completion and the end token. */
  private need(w: DesignWriter): number {
    return w.done ? 1 : this.cost(w.completion(this.cost)) + 1;
  }

  /**
   * Near the end of the budget: drops the tokens after which the design could no longer be completed
   * in time. Checked one token ahead for structure (a choice can open a whole agent) and for free-field
   * tokens that hold a byte which changes the state; other free-field tokens are covered by `margin`.
   */
  private fitBudget(out: Int32Array, left: number): void {
    const w = this.writer;
    const free = w.freeKind() !== null;
    const risky = free ? holdingMask(this.v, w.riskyBytes()) : null;
    for (let i = 0; i < out.length; i++) {
      let word = (out[i] as number) & (risky ? (risky[i] as number) : -1);
      while (word !== 0) {
        const bit = 31 - Math.clz32(word & -word);
        word &= word - 1;
        const t = (i << 5) | bit;
        if (this.eos.includes(t)) continue;
        const c = w.clone();
        const b = this.bytesOf(t);
        let ok = true;
        for (let j = 0; j < b.length && ok; j++) ok = c.step(b[j] as number);
        if (!ok || this.need(c) > left - 1) clear(out, t);
      }
    }
    // The cheapest completion's next token always fits (its need drops by one).
    if (!out.some((x) => x !== 0)) {
      this.pinned = new TextEncoder().encode(w.completion(this.cost));
      set(out, longestPrefixToken(this.v, this.pinned));
    }
  }

  private semanticMask(out: Int32Array): void {
    const w = this.writer;
    const g = this.grammarMask;
    const forced = w.forced();
    if (forced !== '') {
      const f = new TextEncoder().encode(forced);
      const t = longestPrefixToken(this.v, f);
      if (t >= 0 && has(g, t)) {
        set(out, t);
        // Tokens that spell all of the determined text and go on past it (`, ` then the next role:
        // ` Planner`) are valid continuations too; shorter prefixes of it are not offered.
        const c = w.clone();
        let lo = 0;
        let hi = this.v.sorted.length;
        for (let d = 0; d < f.length && lo < hi; d++) {
          [lo, hi] = childRange(this.v, lo, hi, d, f[d] as number);
          if (!c.step(f[d] as number)) return;
        }
        if (lo < hi) this.walk(c, lo, hi, f.length, out);
        return;
      }
    }
    const kind = w.freeKind();
    if (kind !== null) {
      const ord = this.v.ordinary;
      for (let i = 0; i < out.length; i++) out[i] = (g[i] as number) & (ord[i] as number);
      const risky = holdingMask(this.v, w.riskyBytes());
      for (let i = 0; i < out.length; i++) {
        let word = (out[i] as number) & (risky[i] as number);
        while (word !== 0) {
          const bit = 31 - Math.clz32(word & -word);
          word &= word - 1;
          const t = (i << 5) | bit;
          if (!this.accepts(w, t)) clear(out, t);
        }
      }
      return;
    }
    this.walk(w, 0, this.v.sorted.length, 0, out);
  }

  /**
   * Depth-first along the sorted vocabulary: at depth d every token in [lo, hi) shares its first d
   * bytes, which `w` has consumed. Descends only into bytes the writer accepts; once the writer is
   * in a free field, the rest of each token is checked directly (few tokens share a prefix there).
   */
  private walk(w: DesignWriter, lo: number, hi: number, d: number, out: Int32Array): void {
    const v = this.v;
    const g = this.grammarMask;
    let i = lo;
    while (i < hi && tokenLength(v, v.sorted[i] as number) === d) {
      const t = v.sorted[i] as number;
      if (d > 0 && has(g, t)) set(out, t);
      i++;
    }
    if (d > 0 && w.freeKind() !== null) {
      for (; i < hi; i++) {
        const t = v.sorted[i] as number;
        if (has(g, t) && this.accepts(w, t, d)) set(out, t);
      }
      return;
    }
    while (i < hi) {
      const t = v.sorted[i] as number;
      const b = v.bytes[(v.offsets[t] as number) + d] as number;
      const [a, z] = childRange(v, i, hi, d, b);
      if (w.mayStep(b)) {
        const c = w.clone();
        if (c.step(b)) this.walk(c, a, z, d + 1, out);
      }
      i = z;
    }
  }

  apply(logits: Float32Array): Float32Array {
    const m = this.mask();
    let best = -1;
    let bestV = -Infinity;
    for (let t = 0; t < logits.length; t++) {
      const x = logits[t] as number;
      if (x > bestV) {
        bestV = x;
        best = t;
      }
    }
    if (best >= 0 && (best >= this.vocabSize || !has(m, best))) this.stats.maskedSteps++;
    for (let i = 0; i < m.length; i++) {
      const word = m[i] as number;
      if (word === -1) continue;
      const base = i << 5;
      const end = Math.min(base + 32, logits.length);
      for (let t = base; t < end; t++) if (((word >>> (t & 31)) & 1) === 0) logits[t] = -Infinity;
    }
    for (let t = m.length << 5; t < logits.length; t++) logits[t] = -Infinity;
    return logits;
  }

  accept(tokenId: number): void {
    const m = this.mask();
    if (tokenId < 0 || tokenId >= this.vocabSize || !has(m, tokenId)) {
      throw new Error(`Token ${tokenId} is not allowed at this step of the design.`);
    }
    this.fresh = false;
    if (this.ended) return;
    this.used++;
    if (this.eos.includes(tokenId)) {
      this.ended = true;
      return;
    }
    if (!this.matcher.acceptToken(tokenId)) throw new Error(`The grammar rejected token ${tokenId}.`);
    this.writer.tokenStart();
    const b = this.bytesOf(tokenId);
    for (let i = 0; i < b.length; i++) {
      if (!this.writer.step(b[i] as number)) throw new Error(`The design rules rejected token ${tokenId}.`);
    }
    this.chunks.push(b);
    if (this.pinned !== null) this.pinned = this.pinned.subarray(b.length);
  }
}
