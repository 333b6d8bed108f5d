import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../core/rng.ts';
import type { Result } from '../core/result.ts';
import { parseCheckpoint, serializeCheckpoint } from './checkpoint.ts';
import { randomCheckpoint } from './network.ts';
import { DEFAULT_POOL, parseRolePool, serializeRolePool } from './roles.ts';

/**
 * The two files a user hands the construction policy — a checkpoint (`baton.policy/1`) and a role
 * pool (`baton.roles/1`) — are untrusted. Seeded mutations of valid files must never make a parser
 * throw, and every refusal must say what is wrong.
 */

const ODD: unknown[] = [null, -1, 0, 1e308, 'x', '', [], {}, true, [1, 'a'], 'baton.policy/2', 4, 1.5];

/** A random value deep inside the JSON document replaced by one of another type, or deleted. */
function mutateValue(rng: Rng, json: string): string {
  const value = JSON.parse(json) as unknown;
  let node: unknown = value;
  for (let depth = 0; depth < 6; depth++) {
    if (typeof node !== 'object' || node === null) break;
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = rng.pick(keys);
    const child = (node as Record<string, unknown>)[key];
    if (rng.int(3) === 0 || typeof child !== 'object' || child === null) {
      if (rng.int(4) === 0) delete (node as Record<string, unknown>)[key];
      else (node as Record<string, unknown>)[key] = rng.pick(ODD);
      break;
    }
    node = child;
  }
  return JSON.stringify(value);
}

/** Byte-level damage: truncation, a flipped bit, a deleted span, an inserted structural character. */
function mutateText(rng: Rng, text: string): string {
  const at = rng.int(text.length);
  switch (rng.int(4)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return (
        text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ (1 << rng.int(8))) + text.slice(at + 1)
      );
    case 2:
      return text.slice(0, at) + text.slice(at + 1 + rng.int(40));
    default:
      return text.slice(0, at) + rng.pick(['"', '}', ']', ',', '\u0000', '\ud800']) + text.slice(at);
  }
}

function fuzz<T>(
  seed: number,
  valid: string,
  parse: (text: string) => Result<T>,
): { accepted: number; refused: number } {
  const rng = createRng(seed);
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < 400; i++) {
    const input = i % 2 === 0 ? mutateValue(rng, valid) : mutateText(rng, valid);
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
