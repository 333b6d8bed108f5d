/**
 * A vocabulary as the constraint engine needs it, built once per tokenizer and cached: every
 * token's bytes, the tokens sorted by their bytes (an implicit byte trie: the tokens that start
 * with a prefix are one contiguous range of the sorted order, found by binary search), and bitmasks
 * of the tokens that hold given bytes. Nothing here scans the vocabulary per decoding step.
 *
 * Token strings arrive encoded the way tokenizer files store them: `byte_level` (GPT-2 / Qwen /
 * Llama 3: each byte is one printable character), `byte_fallback` (SentencePiece: `▁` for a space,
 * `<0x0A>` for raw bytes) or `raw` (the text itself).
 */

export type VocabType = 'byte_level' | 'byte_fallback' | 'raw';

export interface Vocab {
  /** Token strings as stored in the tokenizer file, by id (the form xgrammar's TokenizerInfo takes). */
  encoded: readonly string[];
  type: VocabType;
  /** The model's logits width; at least `encoded.length` (models pad their output layer). */
  size: number;
  /** Words of a bitmask over `size` tokens. */
  words: number;
  /** Token i's bytes: `bytes.subarray(offsets[i], offsets[i + 1])`. */
  bytes: Uint8Array;
  offsets: Int32Array;
  /** Ids of ordinary tokens sorted by their bytes; special tokens and padding are left out. */
  sorted: Int32Array;
  /** Special tokens (added tokens such as `<|im_end|>`): never allowed except as end tokens. */
  special: Int32Array;
  /** Bitmask of the ordinary tokens (not special, not padding, not empty). */
  ordinary: Int32Array;
  /** Bitmasks of the tokens holding any of the given bytes, keyed by the bytes; filled on demand. */
  holding: Map<string, Int32Array>;
}

/** GPT-2's byte-to-character table, inverted: character code → byte. */
function byteLevelDecoder(): Map<number, number> {
  const bs: number[] = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n);
      n++;
    }
  }
  const out = new Map<number, number>();
  bs.forEach((b, i) => out.set(cs[i] as number, b));
  return out;
}

const utf8 = new TextEncoder();

/** A token's bytes, or null when the string is not a token of this encoding. */
export function tokenBytes(token: string, type: VocabType, table = byteLevelDecoder()): Uint8Array | null {
  if (type === 'raw') return utf8.encode(token);
  if (type === 'byte_fallback') {
    const hex = /^<0x([0-9A-Fa-f]{2})>$/.exec(token);
    if (hex) return Uint8Array.of(parseInt(hex[1] as string, 16));
    return utf8.encode(token.replace(/\u2581/g, ' '));
  }
  const out = new Uint8Array(token.length);
  for (let i = 0; i < token.length; i++) {
    const b = table.get(token.charCodeAt(i));
    if (b === undefined) return null;
    out[i] = b;
  }
  return out;
}

export interface VocabOptions {
  type?: VocabType;
  /** The logits width, when the model pads its output layer past the tokenizer's last id. */
  size?: number;
  /** Ids of special tokens (added tokens); they never enter the trie. */
  specialIds?: readonly number[];
}

const cache = new WeakMap<readonly string[], Map<string, Vocab>>();

/** Builds (or returns the cached) vocabulary for these token strings. */
export function buildVocab(encoded: readonly string[], options: VocabOptions = {}): Vocab {
  const type = options.type ?? 'byte_level';
  const size = Math.max(options.size ?? encoded.length, encoded.length);
  const special = [...new Set(options.specialIds ?? [])]
    .filter((i) => i >= 0 && i < size)
    .sort((a, b) => a - b);
  const key = `${type}|${size}|${special.join(',')}`;
  const hit = cache.get(encoded)?.get(key);
  if (hit) return hit;

  const table = byteLevelDecoder();
  const parts: Uint8Array[] = [];
  const offsets = new Int32Array(size + 1);
  const isSpecial = new Uint8Array(size);
  for (const i of special) isSpecial[i] = 1;
  let total = 0;
  for (let i = 0; i < size; i++) {
    offsets[i] = total;
    const t = encoded[i];
    const b = t === undefined || isSpecial[i] ? null : tokenBytes(t, type, table);
    if (b && b.length > 0) {
      parts.push(b);
      total += b.length;
    } else {
      parts.push(new Uint8Array(0));
    }
  }
  offsets[size] = total;
  const bytes = new Uint8Array(total);
  parts.forEach((p, i) => bytes.set(p, offsets[i] as number));

  const words = Math.ceil(size / 32);
  const ordinary = new Int32Array(words);
  const ids: number[] = [];
  const keys: string[] = [];
  for (let i = 0; i < size; i++) {
    const a = offsets[i] as number;
    const z = offsets[i + 1] as number;
    if (z === a) continue;
    ordinary[i >> 5] = (ordinary[i >> 5] as number) | (1 << (i & 31));
    ids.push(i);
    // Latin-1 strings compare code unit by code unit, which is byte order.
    keys[i] = String.fromCharCode(...bytes.subarray(a, z));
  }
  ids.sort((x, y) => {
    const kx = keys[x] as string;
    const ky = keys[y] as string;
    return kx < ky ? -1 : kx > ky ? 1 : x - y;
  });
  const vocab: Vocab = {
    encoded,
    type,
    size,
    words,
    bytes,
    offsets,
    sorted: Int32Array.from(ids),
    special: Int32Array.from(special),
    ordinary,
    holding: new Map(),
  };
  let perKey = cache.get(encoded);
  if (!perKey) {
    perKey = new Map();
    cache.set(encoded, perKey);
  }
  perKey.set(key, vocab);
  return vocab;
}

/** Bitmask of the ordinary tokens holding any byte of `set`; computed once per vocabulary and set. */
export function holdingMask(vocab: Vocab, set: string): Int32Array {
  const hit = vocab.holding.get(set);
  if (hit) return hit;
  const wanted = new Uint8Array(256);
  for (let i = 0; i < set.length; i++) wanted[set.charCodeAt(i) & 255] = 1;
  const mask = new Int32Array(vocab.words);
  for (let t = 0; t < vocab.size; t++) {
    for (let j = vocab.offsets[t] as number; j < (vocab.offsets[t + 1] as number); j++) {
      if (wanted[vocab.bytes[j] as number]) {
        mask[t >> 5] = (mask[t >> 5] as number) | (1 << (t & 31));
        break;
      }
    }
  }
  vocab.holding.set(set, mask);
  return mask;
}

/** Byte `d` of the token at sorted position `i`, or -1 past its end. */
function byteAt(v: Vocab, i: number, d: number): number {
  const t = v.sorted[i] as number;
  const a = (v.offsets[t] as number) + d;
  return a < (v.offsets[t + 1] as number) ? (v.bytes[a] as number) : -1;
}

/** First sorted position in [lo, hi) whose byte at depth d is ≥ b (positions share d bytes). */
function lowerBound(v: Vocab, lo: number, hi: number, d: number, b: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (byteAt(v, mid, d) < b) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The range of sorted positions in [lo, hi) (sharing d bytes) whose byte d is b. */
export function childRange(v: Vocab, lo: number, hi: number, d: number, b: number): [number, number] {
  const a = lowerBound(v, lo, hi, d, b);
  return [a, lowerBound(v, a, hi, d, b + 1)];
}

/** Token length in bytes. */
export function tokenLength(v: Vocab, t: number): number {
  return (v.offsets[t + 1] as number) - (v.offsets[t] as number);
}

/**
 * The longest ordinary token whose bytes are a prefix of `target`, or -1 when no token is.
 * A walk down the implicit trie: one binary search per byte.
 */
export function longestPrefixToken(v: Vocab, target: Uint8Array): number {
  let lo = 0;
  let hi = v.sorted.length;
  let best = -1;
  for (let d = 0; d < target.length && lo < hi; d++) {
    [lo, hi] = childRange(v, lo, hi, d, target[d] as number);
    if (lo < hi && tokenLength(v, v.sorted[lo] as number) === d + 1) best = v.sorted[lo] as number;
  }
  return best;
}

/** A tokenizer object as transformers.js (and its forks) expose it. */
export interface TokenizerLike {
  get_vocab?: () => Map<string, number> | Record<string, number>;
  model?: { vocab?: unknown };
  all_special_ids?: readonly number[];
  added_tokens?: readonly { id: number; special?: boolean }[];
}

/** Token strings by id and the special ids of a transformers.js tokenizer. */
export function vocabFromTokenizer(tokenizer: TokenizerLike): { encoded: string[]; specialIds: number[] } {
  let encoded: string[] = [];
  const raw = tokenizer.model?.vocab;
  if (Array.isArray(raw) && raw.every((t) => typeof t === 'string')) {
    encoded = [...(raw as string[])];
  } else if (tokenizer.get_vocab) {
    const v = tokenizer.get_vocab();
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
    for (const [tok, id] of entries) encoded[id] = tok;
  } else {
    throw new Error('The tokenizer exposes no vocabulary (neither model.vocab nor get_vocab()).');
  }
  const specialIds = new Set<number>(tokenizer.all_special_ids ?? []);
  // Added tokens marked special (`<|im_end|>`) are never text; plain added tokens (a format's tags,
  // Qwen's `<think>`) are ordinary tokens spelled by their content.
  for (const a of tokenizer.added_tokens ?? []) if (a.special !== false) specialIds.add(a.id);
  for (let i = 0; i < encoded.length; i++) if (encoded[i] === undefined) encoded[i] = '';
  return { encoded, specialIds: [...specialIds] };
}
