/**
 * The ONNX builder's own rules and the quantizers' layouts, on small hand-checked cases, and
 * `checkOnnxModel` under seeded byte mutations (it returns problems, it never throws).
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { initWeights } from '../init.ts';
import { TinyGptConfigSchema } from '../spec.ts';
import { checkOnnxModel } from './check.ts';
import { exportTinyGptOnnx } from './gpt2.ts';
import { Q4_BLOCK, dequantizeInt8, dequantizeQ4, quantizeInt8, quantizeQ4 } from './quantize.ts';
import { GraphBuilder, decodeModelProto, encodeModel } from './writer.ts';

describe('GraphBuilder', () => {
  it('refuses duplicate names, reads of unknown values, unproduced outputs and domains without an opset', () => {
    const g = new GraphBuilder('t');
    const x = g.input('x', 'float32', ['n', 2]);
    expect(() => g.input('x', 'float32', [1])).toThrow(/already has a value named x/);
    expect(() => g.node('Relu', ['y'])).toThrow(/reads y, which does not exist/);
    expect(() => g.output('nowhere', 'float32', [1])).toThrow(/not produced/);
    expect(() => g.init('w', 'float32', [2, 2], new Float32Array(3))).toThrow(/3 values for dims \[2, 2\]/);
    g.node('Relu', [x], {}, { output: 'y', domain: 'com.example' });
    g.output('y', 'float32', ['n', 2]);
    expect(() => g.build({ opsets: { '': 17 }, producer: 'p' })).toThrow(
      /domain com.example without an opset/,
    );
  });

  it('round-trips through protobuf: symbolic and fixed dims, attributes, raw little-endian data', () => {
    const g = new GraphBuilder('t');
    const x = g.input('x', 'float32', ['batch_size', 3]);
    const w = g.init('w', 'float32', [3, 2], Float32Array.from([1, 2, 3, 4, 5, 6]));
    g.node('Softmax', [g.node('MatMul', [x, w])], { axis: { i: -1 } }, { output: 'y' });
    g.output('y', 'float32', ['batch_size', 2]);
    const bytes = encodeModel(g.build({ opsets: { '': 17 }, producer: 'p', metadata: { k: 'v' } }));
    const m = decodeModelProto(bytes);
    expect(
      m.graph?.input?.[0]?.type?.tensorType?.shape?.dim?.map((d) => d.dimParam || Number(d.dimValue)),
    ).toEqual(['batch_size', 3]);
    const raw = m.graph?.initializer?.[0]?.rawData as Uint8Array;
    expect(Array.from(new Float32Array(raw.slice().buffer))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(m.graph?.node?.[1]?.attribute?.[0]?.name).toBe('axis');
    expect(Number(m.graph?.node?.[1]?.attribute?.[0]?.i)).toBe(-1);
    expect(m.metadataProps?.[0]).toMatchObject({ key: 'k', value: 'v' });
    // A plain Uint8Array, not a Node Buffer (whose slice() would be a view).
    expect(Object.getPrototypeOf(bytes)).toBe(Uint8Array.prototype);
  });
});

describe('quantizers', () => {
  it('int8 per column: error at most half a step, exact zeros kept', () => {
    const w = Float32Array.from([0.5, -1, 0, 0.25, 0.3, 0]);
    const q = quantizeInt8(w, 3, 2, 1);
    expect(Array.from(q.scales)).toEqual([Math.fround(0.5 / 127), Math.fround(1 / 127)]);
    const back = dequantizeInt8(q, 3, 2);
    w.forEach((v, i) =>
      expect(Math.abs((back[i] as number) - v)).toBeLessThanOrEqual((q.scales[i % 2] as number) / 2 + 1e-7),
    );
    expect(back[2]).toBe(0);
  });

  it('q4 packs two values a byte, even index low, in MatMulNBits order [N, blocks, 16], K padded', () => {
    const k = 40; // two blocks, the second padded
    const n = 2;
    const w = new Float32Array(k * n);
    for (let r = 0; r < k; r++) for (let c = 0; c < n; c++) w[r * n + c] = ((r % 16) - 7) * (c + 1) * 0.1;
    const q = quantizeQ4(w, k, n);
    expect(q.blocks).toBe(2);
    expect(q.packed.length).toBe(n * 2 * (Q4_BLOCK / 2));
    expect(q.zeroPoints.length).toBe(n * 1);
    const back = dequantizeQ4(q);
    for (let c = 0; c < n; c++) {
      for (let b = 0; b < 2; b++) {
        const scale = q.scales[c * 2 + b] as number;
        for (let i = 0; i < Q4_BLOCK && b * Q4_BLOCK + i < k; i++) {
          const r = b * Q4_BLOCK + i;
          expect(Math.abs((back[r * n + c] as number) - (w[r * n + c] as number))).toBeLessThanOrEqual(
            scale / 2 + 1e-6,
          );
        }
      }
    }
    // Row 0, column 0 is -0.7 = the block minimum: q = 0 in the low nibble of the first byte.
    expect((q.packed[0] as number) & 15).toBe(0);
  });
});

describe('checkOnnxModel under mutation', () => {
  it('never throws on truncated or flipped bytes, and flags them or reads them', () => {
    const config = TinyGptConfigSchema.parse({
      vocabSize: 20,
      nPositions: 8,
      nEmbd: 32,
      nHead: 2,
      nLayer: 1,
    });
    const good = exportTinyGptOnnx(initWeights(config, 2), { dtype: 'q4' });
    const rng = createRng(99);
    let flagged = 0;
    for (let i = 0; i < 300; i++) {
      const b = good.slice(0, rng.int(3) === 0 ? rng.int(good.length) : good.length);
      const flips = rng.int(8);
      for (let f = 0; f < flips && b.length > 0; f++) b[rng.int(b.length)] = rng.int(256);
      const r = checkOnnxModel(b, { config });
      if (!r.ok) {
        flagged++;
        expect(r.errors[0]?.code).toBe('E_MODEL_ONNX');
      }
    }
    expect(flagged).toBeGreaterThan(100);
  });
});
