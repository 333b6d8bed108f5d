/**
 * Index inputs out of range (inputs.ts): the same clear error from `setInput` on the TypeScript,
 * wasm and WebGPU backends, for every op that reads an index, naming the input, the position and
 * the bound; padding rows past the live ones are not checked; the model keeps what it had.
 */
import { describe, expect, it } from 'vitest';
import { Graph } from './graph.ts';
import { compile, type BackendChoice } from './index.ts';
import { indexLimits } from './inputs.ts';
import type { Model } from './model.ts';
import { useGpuContext } from './testing/gpu-context.ts';

const gpu = useGpuContext();

/** A graph with an index for each op that reads one: gather, scatter, pick, cross-entropy. */
function graph() {
  const g = new Graph();
  const table = g.param('table', [5, 3], new Float32Array(15).fill(0.5));
  const gi = g.input('gi', [4], 'u32');
  const gathered = g.gatherRows(table, gi);
  const si = g.input('si', [4], 'u32');
  const scattered = g.scatterAddRows(gathered, si, 6);
  const pi = g.input('pi', [6], 'u32');
  const picked = g.pick(scattered, pi);
  const ti = g.input('ti', [6], 'u32');
  const ce = g.crossEntropy(scattered, ti, g.input('w', [6]));
  const loss = g.add(g.sum(picked), ce);
  return { g, loss, picked };
}

const backends = (): BackendChoice[] => [
  { backend: 'cpu', reason: 'test', adapter: null, ctx: null },
  { backend: 'wasm', reason: 'test', adapter: null, ctx: null },
  { backend: 'webgpu', reason: 'test', adapter: gpu().adapter, ctx: gpu() },
];

function feed(m: Model): void {
  m.setInput('gi', Uint32Array.of(0, 4, 2, 4));
  m.setInput('si', Uint32Array.of(5, 0, 5, 1));
  m.setInput('pi', Uint32Array.of(0, 1, 2, 0, 1, 2));
  m.setInput('ti', Uint32Array.of(2, 2, 1, 0, 0, 1));
  m.setInput('w', new Float32Array(6).fill(1));
}

describe('index inputs out of range', () => {
  it('bound each index by what it indexes', () => {
    const { g } = graph();
    const byName = new Map(g.inputs().map((n) => [n.op.kind === 'input' ? n.op.name : '', n.id]));
    const limits = indexLimits(g);
    expect([...['gi', 'si', 'pi', 'ti'].map((k) => limits.get(byName.get(k) as number)?.limit)]).toEqual([
      5, 6, 3, 3,
    ]);
    expect(limits.has(byName.get('w') as number)).toBe(false);
  });

  it('are the same clear error on every backend, and the model keeps its inputs', async () => {
    for (const choice of backends()) {
      const { g, loss, picked } = graph();
      const m = await compile(choice, g, { loss });
      feed(m);
      const before = await m.step({ read: [picked], backward: false });
      const cases: [string, Uint32Array, RegExp][] = [
        [
          'gi',
          Uint32Array.of(0, 5, 0, 0),
          /input gi: index 5 at position 1 is outside the rows of gatherRows' table .*, which has 5/,
        ],
        [
          'si',
          Uint32Array.of(0, 0, 0, 6),
          /input si: index 6 at position 3 is outside the rows of scatterAddRows' output/,
        ],
        [
          'pi',
          Uint32Array.of(0, 0, 0, 0, 0, 3),
          /input pi: index 3 at position 5 is outside the columns picked from/,
        ],
        [
          'ti',
          Uint32Array.of(7, 0, 0, 0, 0, 0),
          /input ti: index 7 at position 0 is outside the classes of crossEntropy/,
        ],
      ];
      for (const [name, data, message] of cases)
        expect(() => m.setInput(name, data), `${choice.backend} ${name}`).toThrow(message);
      // Floats given for an index: integers in range pass, a fraction does not.
      expect(() => m.setInput('pi', Float32Array.of(0, 1, 2, 0, 1, 2))).not.toThrow();
      expect(() => m.setInput('pi', Float32Array.of(0, 1.5, 2, 0, 1, 2))).toThrow(/index 1.5 at position 1/);
      // Nothing was taken from the refused inputs: the same step gives the same numbers.
      const after = await m.step({ read: [picked], backward: false });
      expect(after.values, choice.backend).toEqual(before.values);
      m.dispose();
    }
  });

  it('are not checked past the live rows (padding)', async () => {
    for (const choice of backends()) {
      const { g, loss } = graph();
      const m = await compile(choice, g, { loss });
      feed(m);
      expect(() => m.setInput('gi', Uint32Array.of(0, 1, 99, 99), 2), choice.backend).not.toThrow();
      expect(() => m.setInput('gi', Uint32Array.of(0, 1, 99, 99), 3), choice.backend).toThrow(
        /index 99 at position 2/,
      );
      m.dispose();
    }
  });
});
