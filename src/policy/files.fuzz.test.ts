import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import type { Result } from '../core/result.ts';
import { mutate, mutateJsonValue } from '../../tests/support/fuzz.ts';
import { parseCheckpoint, serializeCheckpoint } from './checkpoint.ts';
import { randomCheckpoint } from './network.ts';
import { DEFAULT_POOL, parseRolePool, serializeRolePool } from './roles.ts';

/**
 * The two files a user hands the construction policy — a checkpoint (`baton.policy/1`) and a role
 * pool (`baton.roles/1`) — are untrusted. Seeded mutations of valid files (the share fuzzer's
 * mutations) must never make a parser throw, and every refusal must say what is wrong.
 */

function fuzz<T>(
  seed: number,
  valid: string,
  parse: (text: string) => Result<T>,
): { accepted: number; refused: number } {
  const rng = createRng(seed);
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const input = i % 2 === 0 ? mutateJsonValue(rng, valid) : mutate(rng, valid);
    let r: Result<T>;
    try {
      r = parse(input);
    } catch (e) {
      throw new Error(`case ${i} threw ${String(e)} on ${input.slice(0, 200)}`, { cause: e });
    }
    if (r.ok) accepted++;
    else {
      refused++;
      expect(r.errors.length).toBeGreaterThan(0);
      for (const p of r.errors) expect(p.message.trim().length).toBeGreaterThan(5);
    }
  }
  return { accepted, refused };
}

describe('policy files under seeded mutations', () => {
  it('checkpoints: never a throw, every refusal explained', () => {
    const small = randomCheckpoint(DEFAULT_POOL, 3, { hashDim: 16, hidden: 4, maxAgents: 4, graphHidden: 4 });
    const { accepted, refused } = fuzz(7, serializeCheckpoint(small), parseCheckpoint);
    // Most damage is caught; a value replaced inside `meta` or `name` may still be a valid file.
    expect(refused).toBeGreaterThan(300);
    expect(accepted + refused).toBe(400);
  });

  it('role pools: never a throw, every refusal explained', () => {
    const { accepted, refused } = fuzz(8, serializeRolePool(DEFAULT_POOL), parseRolePool);
    expect(refused).toBeGreaterThan(250);
    expect(accepted + refused).toBe(400);
  });
});
