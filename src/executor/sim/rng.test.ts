import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CallRng } from './rng.ts';

describe('the simulator’s per-call generator', () => {
  it('draws what createRng draws from the same seed, next and int interleaved', () => {
    const seeds = [0, 1, 2, 0xffffffff, -1, 2 ** 40 + 3, 123456789];
    for (let k = 0; k < 300; k++) seeds.push((k * 2654435761) >>> 0);
    for (const seed of seeds) {
      const ref = createRng(seed);
      const fast = new CallRng(seed);
      for (let i = 0; i < 50; i++) {
        const n = 1 + (i % 29);
        if (i % 3 === 0) expect(fast.int(n)).toBe(ref.int(n));
        else expect(fast.next()).toBe(ref.next());
      }
    }
    expect(() => new CallRng(1).int(0)).toThrow(/positive integer/);
  });
});
