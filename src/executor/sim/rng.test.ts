import { describe, expect, it } from 'vitest';
import { createRng, hashString } from '../../core/rng.ts';
import { CallRng, callSeed, callSeedPrefix } from './rng.ts';

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

  it('is seeded as hashString of the call’s identity would seed it, without the string', () => {
    const labels = ['answer', 'sample 3/5', 'debate round 2 · Solver', 'critic round 1', '', 'ü ✓ 🙂'];
    const agents = ['solver-1', 'summarizer', 'A', '', 'ñandú'];
    for (const seed of [0, 1, 7, 4294967295, 123456])
      for (const taskId of ['depth-4-11', 'x', ''])
        for (const agent of agents)
          for (const [i, label] of labels.entries())
            expect(callSeed(callSeedPrefix(seed, taskId), agent, i * 7, label)).toBe(
              hashString(`${seed}|${taskId}|${agent}|${i * 7}|${label}`),
            );
  });
});
