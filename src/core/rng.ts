/**
 * Seeded pseudo-random numbers (mulberry32). Every random choice in the pure layers takes an `Rng`,
 * so a seed reproduces a run exactly.
 */
export interface Rng {
  /** Uniform float in [0, 1). */
  next(): number;
  /** Uniform integer in [0, n); `n` must be a positive integer. */
  int(n: number): number;
  /** Uniform integer in [lo, hi], both ends included. */
  range(lo: number, hi: number): number;
  /** Picks one element; the array must not be empty. */
  pick<T>(items: readonly T[]): T;
  /** A shuffled copy (Fisher–Yates); the input is left alone. */
  shuffle<T>(items: readonly T[]): T[];
  /** A new independent generator derived from this one. */
  fork(): Rng;
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0) throw new Error(`rng.int needs a positive integer, got ${n}`);
    return Math.floor(next() * n);
  };
  const rng: Rng = {
    next,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[int(items.length)] as (typeof items)[number];
    },
    shuffle: (items) => {
      const out = [...items];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
    fork: () => createRng(Math.floor(next() * 4294967296)),
  };
  return rng;
}

/**
 * Finalizer of MurmurHash3 (fmix32): a bijection on 32-bit integers that spreads every input bit
 * over the output. Used to derive seeds and splits so that neighbouring seeds behave independently.
 */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 32-bit FNV-1a hash of a string, for deriving seeds and stable ids from content. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
