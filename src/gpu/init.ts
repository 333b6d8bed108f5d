/** Seeded parameter initialisers (randomness only from the seeded RNG in src/core). */
import type { Rng } from '../core/rng.ts';

/** Uniform in [−a, a). */
export function uniform(rng: Rng, n: number, a: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng.next() * 2 - 1) * a;
  return out;
}

/** Glorot/Xavier uniform for a [fanIn, fanOut] weight: a = sqrt(6 / (fanIn + fanOut)). */
export function glorot(rng: Rng, fanIn: number, fanOut: number): Float32Array {
  return uniform(rng, fanIn * fanOut, Math.sqrt(6 / (fanIn + fanOut)));
}

export function zeros(n: number): Float32Array {
  return new Float32Array(n);
}

export function ones(n: number): Float32Array {
  return new Float32Array(n).fill(1);
}
