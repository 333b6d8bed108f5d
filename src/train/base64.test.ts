import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { base64ToBytes, bytesToBase64 } from './base64.ts';

describe('base64', () => {
  it("agrees with Node's encoder both ways for every length 0-64 and random bytes", () => {
    const rng = createRng(7);
    for (let n = 0; n <= 64; n++) {
      const bytes = Uint8Array.from({ length: n }, () => Math.floor(rng.next() * 256));
      const text = bytesToBase64(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64'));
      expect(Array.from(base64ToBytes(text) ?? [])).toEqual(Array.from(bytes));
    }
  });

  it('refuses text that is not padded base64', () => {
    for (const bad of ['A', 'AB=', 'A===', 'AB$=', 'AB-_', '====']) expect(base64ToBytes(bad)).toBeNull();
    expect(base64ToBytes('')).toEqual(new Uint8Array(0));
  });
});
