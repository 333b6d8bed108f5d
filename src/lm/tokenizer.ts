/**
 * The tiny orchestrator's tokenizer: byte-level BPE as GPT-2 has it, trained from a corpus by this
 * file and written in the Hugging Face `tokenizers` JSON that transformers.js reads, so the model
 * folder loads with the same tokenizer in the tab as in training.
 *
 * - Bytes: every UTF-8 byte is one base symbol, written as GPT-2's printable character for it
 *   (`byteToUnicode`), so any text encodes and nothing is unknown.
 * - Pre-tokenization: GPT-2's regex splits text into chunks (a word with its leading space, a
 *   number, a run of punctuation, whitespace); merges never cross a chunk.
 * - Merges: learned by frequency over the corpus' chunks; ties go to the pair whose left, then
 *   right, id is smaller, so training is a pure function of the corpus and the options.
 * - Special tokens (ids 0..k−1), then plain added tokens (e.g. a format's XML tags): matched in the
 *   text before anything else, never merged, and decoded as written (the Hugging Face "added
 *   tokens"; only the first kind is `special`, so `skip_special_tokens` keeps the others).
 * - Encoding applies the lowest-ranked merge at the leftmost place first, the order transformers.js'
 *   BPE uses, so both give the same ids (tested against it).
 *
 * Pure: bytes in, bytes out; the script writes the files.
 */
import { z } from 'zod';

/** GPT-2's regex: contractions, letters, numbers, other symbols (each with one leading space), spaces. */
const PRETOKEN_RE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** GPT-2's byte ↔ printable-character table: printable Latin-1 bytes map to themselves, the rest to 256+. */
function byteTable(): { toChar: string[]; toByte: Map<string, number> } {
  const keep: number[] = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const toChar: string[] = new Array<string>(256);
  const kept = new Set(keep);
  for (const b of keep) toChar[b] = String.fromCharCode(b);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!kept.has(b)) {
      toChar[b] = String.fromCharCode(256 + n);
      n++;
    }
  }
  const toByte = new Map<string, number>();
  toChar.forEach((c, b) => toByte.set(c, b));
  return { toChar, toByte };
}

const BYTES = byteTable();
const utf8 = new TextEncoder();

/** A chunk of text as byte-level symbols (one character per byte). */
export function byteLevel(text: string): string {
  let s = '';
  for (const b of utf8.encode(text)) s += BYTES.toChar[b] as string;
  return s;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface TrainTokenizerOptions {
  /** Total vocabulary: special tokens + 256 bytes + merges (fewer when the corpus runs out of pairs). */
  vocabSize: number;
  /** Special tokens, ids 0.. in this order. */
  specialTokens: readonly string[];
  /** Added (non-special) tokens, ids after the special ones, in this order. */
  addedTokens?: readonly string[];
  /** A pair seen fewer times than this is not merged (default 2). */
  minFrequency?: number;
}

/** The tokenizer's data: what the JSON holds and what encoding needs. */
export interface TokenizerData {
  specialTokens: readonly string[];
  /** Whole strings with one id each, matched before BPE, that are not special (default none). */
  addedTokens?: readonly string[];
  /** Merges in rank order, each a pair of byte-level token strings. */
  merges: readonly (readonly [string, string])[];
}

export class BpeTokenizer {
  /** Token string by id. */
  readonly tokens: readonly string[];
  private readonly ids: Map<string, number>;
  private readonly ranks: Map<string, number>;
  /** Special and added tokens by string. */
  private readonly wholeIds: Map<string, number>;
  private readonly whole: number;
  private readonly specialRe: RegExp | null;
  private readonly cache = new Map<string, number[]>();

  constructor(readonly data: TokenizerData) {
    const added = [...data.specialTokens, ...(data.addedTokens ?? [])];
    const tokens = [...added];
    for (let b = 0; b < 256; b++) tokens.push(BYTES.toChar[b] as string);
    for (const [a, b] of data.merges) tokens.push(a + b);
    this.tokens = tokens;
    this.ids = new Map();
    tokens.forEach((t, i) => {
      if (this.ids.has(t)) throw new Error(`token ${JSON.stringify(t)} appears twice in the vocabulary`);
      this.ids.set(t, i);
    });
    this.ranks = new Map(data.merges.map(([a, b], i) => [`${a} ${b}`, i]));
    this.wholeIds = new Map(added.map((t, i) => [t, i]));
    this.whole = added.length;
    this.specialRe = wholeTokenRe(added);
  }

  get vocabSize(): number {
    return this.tokens.length;
  }

  /** The id of a token string (a special token or a byte-level token), or undefined. */
  idOf(token: string): number | undefined {
    return this.ids.get(token);
  }

  isSpecial(id: number): boolean {
    return id >= 0 && id < this.data.specialTokens.length;
  }

  /** Ids of one byte-level chunk, merges applied lowest rank first, leftmost first among equals. */
  private bpe(chunk: string): number[] {
    const kept = this.cache.get(chunk);
    if (kept) return kept;
    const parts = Array.from(chunk);
    for (;;) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < parts.length; i++) {
        const r = this.ranks.get(`${parts[i] as string} ${parts[i + 1] as string}`);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          best = i;
        }
      }
      if (best < 0) break;
      parts.splice(best, 2, (parts[best] as string) + (parts[best + 1] as string));
    }
    const out = parts.map((p) => {
      const id = this.ids.get(p);
      if (id === undefined) throw new Error(`no id for ${JSON.stringify(p)}`);
      return id;
    });
    if (this.cache.size < 50_000) this.cache.set(chunk, out);
    return out;
  }

  encode(text: string): number[] {
    const out: number[] = [];
    for (const piece of splitSpecial(text, this.specialRe)) {
      const sid = this.wholeIds.get(piece);
      if (sid !== undefined) {
        out.push(sid);
        continue;
      }
      for (const m of piece.matchAll(PRETOKEN_RE)) out.push(...this.bpe(byteLevel(m[0])));
    }
    return out;
  }

  /** Text of ids: special and added tokens as written, byte runs between them decoded as UTF-8 (bad bytes → U+FFFD). */
  decode(ids: readonly number[]): string {
    const dec = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
    let out = '';
    let run: number[] = [];
    const flush = (): void => {
      if (run.length > 0) out += dec.decode(Uint8Array.from(run));
      run = [];
    };
    for (const id of ids) {
      const t = this.tokens[id];
      if (t === undefined) throw new Error(`token id ${id} out of range`);
      if (id < this.whole) {
        flush();
        out += t;
      } else {
        for (const c of t) run.push(BYTES.toByte.get(c) as number);
      }
    }
    flush();
    return out;
  }

  /** `tokenizer.json` in the Hugging Face `tokenizers` format (BPE model, ByteLevel pre-tokenizer and decoder). */
  toTokenizerJson(): Record<string, unknown> {
    const vocab: Record<string, number> = {};
    this.tokens.forEach((t, i) => (vocab[t] = i));
    return {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: this.tokens.slice(0, this.whole).map((content, id) => ({
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: this.isSpecial(id),
      })),
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      post_processor: null,
      decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: false,
        byte_fallback: false,
        ignore_merges: false,
        vocab,
        merges: this.data.merges.map(([a, b]) => [a, b]),
      },
    };
  }

  /** `tokenizer_config.json`: the special tokens' roles; no clean-up of spaces, so decode gives the text back. */
  tokenizerConfigJson(o: {
    eos: string;
    pad: string;
    bos?: string;
    maxLength: number;
  }): Record<string, unknown> {
    for (const t of [o.eos, o.pad, ...(o.bos !== undefined ? [o.bos] : [])])
      if (!this.data.specialTokens.includes(t)) throw new Error(`${t} is not a special token`);
    return {
      tokenizer_class: 'PreTrainedTokenizerFast',
      model_max_length: o.maxLength,
      clean_up_tokenization_spaces: false,
      add_prefix_space: false,
      eos_token: o.eos,
      pad_token: o.pad,
      bos_token: o.bos ?? o.eos,
      unk_token: null,
      padding_side: 'left',
      additional_special_tokens: this.data.specialTokens.filter((t) => t !== o.eos && t !== o.pad),
    };
  }
}

/** A regex that splits text around whole tokens, longest first (so one that begins another never cuts it short). */
function wholeTokenRe(tokens: readonly string[]): RegExp | null {
  const bySize = [...tokens].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return bySize.length > 0 ? new RegExp(`(${bySize.map(escapeRe).join('|')})`, 'g') : null;
}

function splitSpecial(text: string, re: RegExp | null): string[] {
  if (!re) return [text];
  return text.split(re).filter((p) => p !== '');
}

/** Learns merges from `corpus` (see the file header); deterministic in its arguments. */
export function trainTokenizer(corpus: Iterable<string>, o: TrainTokenizerOptions): BpeTokenizer {
  const wholeTokens = [...o.specialTokens, ...(o.addedTokens ?? [])];
  const base = wholeTokens.length + 256;
  if (!Number.isInteger(o.vocabSize) || o.vocabSize < base)
    throw new Error(`vocabSize must be an integer ≥ ${base} (special and added tokens + 256 bytes)`);
  if (new Set(wholeTokens).size !== wholeTokens.length) throw new Error('special or added tokens repeat');
  const minFrequency = o.minFrequency ?? 2;
  const re = wholeTokenRe(wholeTokens);
  const specials = new Set(wholeTokens);
  // Chunks with their counts, each as a list of symbol ids (bytes are ids 0..255 here; merges 256..).
  const counts = new Map<string, number>();
  for (const text of corpus) {
    for (const piece of splitSpecial(text, re)) {
      if (specials.has(piece)) continue;
      for (const m of piece.matchAll(PRETOKEN_RE)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    }
  }
  const words: { syms: number[]; n: number }[] = [];
  for (const [chunk, n] of counts) words.push({ syms: Array.from(utf8.encode(chunk)), n });
  const symText: string[] = BYTES.toChar.slice();
  const merges: [string, string][] = [];
  const W = 1 << 16;
  while (base + merges.length < o.vocabSize) {
    const pairs = new Map<number, number>();
    for (const w of words) {
      const s = w.syms;
      for (let i = 0; i + 1 < s.length; i++) {
        const k = (s[i] as number) * W + (s[i + 1] as number);
        pairs.set(k, (pairs.get(k) ?? 0) + w.n);
      }
    }
    let bestKey = -1;
    let bestN = 0;
    for (const [k, n] of pairs) if (n > bestN || (n === bestN && k < bestKey)) [bestKey, bestN] = [k, n];
    if (bestKey < 0 || bestN < minFrequency) break;
    const a = Math.floor(bestKey / W);
    const b = bestKey % W;
    const id = symText.length;
    symText.push((symText[a] as string) + (symText[b] as string));
    merges.push([symText[a] as string, symText[b] as string]);
    for (const w of words) {
      const s = w.syms;
      if (s.length < 2) continue;
      const next: number[] = [];
      for (let i = 0; i < s.length; i++) {
        if (i + 1 < s.length && s[i] === a && s[i + 1] === b) {
          next.push(id);
          i++;
        } else next.push(s[i] as number);
      }
      w.syms = next;
    }
  }
  return new BpeTokenizer({
    specialTokens: [...o.specialTokens],
    addedTokens: [...(o.addedTokens ?? [])],
    merges,
  });
}

// ------------------------------------------------------------------ reading tokenizer.json back

const MAX_TOKENIZER_JSON_CHARS = 8_000_000;

const TokenizerJsonSchema = z.object({
  added_tokens: z
    .array(
      z.object({ id: z.number().int().min(0), content: z.string().min(1).max(200), special: z.boolean() }),
    )
    .max(1_000),
  pre_tokenizer: z.object({ type: z.literal('ByteLevel') }),
  model: z.object({
    type: z.literal('BPE'),
    vocab: z.record(z.string(), z.number().int().min(0)),
    merges: z.array(z.union([z.tuple([z.string(), z.string()]), z.string()])).max(65_536),
  }),
});

/**
 * A tokenizer from the `tokenizer.json` this file writes (untrusted text: size-limited, parsed by
 * a schema, and checked to give back the very vocabulary it states). Errors say what is wrong.
 */
export function tokenizerFromJson(
  text: string,
): { ok: true; tokenizer: BpeTokenizer } | { ok: false; message: string } {
  if (text.length > MAX_TOKENIZER_JSON_CHARS)
    return {
      ok: false,
      message: `tokenizer.json is ${text.length} characters; the limit is ${MAX_TOKENIZER_JSON_CHARS}`,
    };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `tokenizer.json is not JSON: ${(e as Error).message}` };
  }
  const parsed = TokenizerJsonSchema.safeParse(raw);
  if (!parsed.success)
    return { ok: false, message: `tokenizer.json: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  const j = parsed.data;
  const whole = [...j.added_tokens].sort((a, b) => a.id - b.id);
  const specials = whole.filter((t) => t.special);
  if (whole.some((t, i) => t.id !== i || (t.special && i >= specials.length)))
    return { ok: false, message: 'tokenizer.json: added tokens must have ids 0.., the special ones first' };
  const merges = j.model.merges.map((m) =>
    typeof m === 'string' ? (m.split(' ', 2) as [string, string]) : m,
  );
  let tok: BpeTokenizer;
  try {
    tok = new BpeTokenizer({
      specialTokens: specials.map((t) => t.content),
      addedTokens: whole.filter((t) => !t.special).map((t) => t.content),
      merges,
    });
  } catch (e) {
    return { ok: false, message: `tokenizer.json: ${(e as Error).message}` };
  }
  const vocab = Object.entries(j.model.vocab);
  if (vocab.length !== tok.vocabSize || vocab.some(([t, id]) => tok.tokens[id] !== t))
    return { ok: false, message: 'tokenizer.json: the vocabulary is not the one its merges make' };
  return { ok: true, tokenizer: tok };
}
