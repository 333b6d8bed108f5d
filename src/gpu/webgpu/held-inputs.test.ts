import { describe, expect, it } from 'vitest';
import { HeldInputs } from './held-inputs.ts';

describe('HeldInputs', () => {
  it('keeps an array as a spare only once no step holds it and its input has moved on', () => {
    const h = new HeldInputs();
    const a = Float32Array.from([1, 2, 3]);
    const b = Float32Array.from([4, 5, 6]);
    const step1 = new Map([[7, a]]);
    const step2 = new Map([[7, a]]);
    h.hold(step1);
    h.hold(step2);
    expect(h.held(a)).toBe(true);
    let current: Float32Array = b;
    h.release(step1, () => current);
    // Step 2 still holds it.
    expect(h.held(a)).toBe(true);
    expect(h.sparesOf(7)).toBe(0);
    h.release(step2, () => current);
    expect(h.held(a)).toBe(false);
    expect(h.sparesOf(7)).toBe(1);
    // The next copy of input 7 is written into it.
    const copy = h.copy(7, b);
    expect(copy).toBe(a);
    expect([...copy]).toEqual([4, 5, 6]);
    expect(h.counts).toEqual({ fresh: 0, reused: 1 });
    expect(h.sparesOf(7)).toBe(0);
    // The input's current array is never a spare.
    current = copy as Float32Array;
    const step3 = new Map([[7, copy as Float32Array]]);
    h.hold(step3);
    h.release(step3, () => current);
    expect(h.sparesOf(7)).toBe(0);
  });

  it('copies into a new array when the spare is of another length or kind', () => {
    const h = new HeldInputs();
    const old = new Uint32Array(4);
    h.hold(new Map([[1, old]]));
    h.release(new Map([[1, old]]), () => undefined);
    expect(h.sparesOf(1)).toBe(1);
    const src = Float32Array.from([1, 2, 3, 4]);
    const copy = h.copy(1, src);
    expect(copy).not.toBe(old);
    expect(copy).toBeInstanceOf(Float32Array);
    expect(h.counts).toEqual({ fresh: 1, reused: 0 });
    expect([...copy]).toEqual([1, 2, 3, 4]);
  });
});
