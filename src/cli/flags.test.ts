import { describe, expect, it } from 'vitest';
import { backendFlag, choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag } from './flags.ts';

describe('shared flags', () => {
  it('reads strict flags and turns an unknown one into a usage error', () => {
    const f = readFlags(['--seed', '3'], { seed: { type: 'string' } });
    expect(f.ok && f.str('seed')).toBe('3');
    const bad = readFlags(['--nope'], { seed: { type: 'string' } });
    expect(bad.ok).toBe(false);
  });

  it('checks seeds, backends, counts and choices with one wording each', () => {
    expect(seedFlag(undefined)).toBe(0);
    expect(seedFlag('4294967295')).toBe(4294967295);
    expect(seedFlag('4294967296')).toEqual({ ok: false, message: expect.stringContaining('--seed must be') });
    expect(backendFlag(undefined, 'cpu')).toBe('cpu');
    expect(backendFlag('wasm', 'cpu')).toBe('wasm');
    expect(isUsageError(backendFlag('gpu', 'auto'))).toBe(true);
    expect(positiveIntFlag('n', '0', '1')).toEqual({
      ok: false,
      message: '--n must be a positive integer, got "0"',
    });
    expect(positiveIntFlag('n', undefined, '7')).toBe(7);
    expect(choiceFlag('algo', 'grpo', ['hrpo', 'grpo'] as const, 'hrpo')).toBe('grpo');
    expect(choiceFlag('algo', 'sgd', ['hrpo', 'grpo'] as const, 'hrpo')).toEqual({
      ok: false,
      message: '--algo must be one of hrpo, grpo',
    });
  });
});
