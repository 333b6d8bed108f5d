/**
 * A small policy-like net for tests of the compute core on every backend: a trunk over state rows
 * (the first 8 features shared by groups of four rows: `sharedPrefix`), a node head (softmax) and an
 * edge head (rows gathered from the trunk, then a product), and a loss over both.
 */
import { createRng } from '../../core/rng.ts';
import { Graph, type Tensor } from '../graph.ts';
import { uniform } from '../init.ts';
import type { CompileOptions, Model } from '../model.ts';

const R = 24; // rows (states)
const D = 12; // features; the first 8 shared by groups of rows (sharedPrefix)
const H = 16;
const A = 5;
const E = 40; // edge rows gathered from the trunk

export interface Net {
  g: Graph;
  probs: Tensor;
  edge: Tensor;
  opts: CompileOptions;
}

/** The net, its parameters drawn from a fixed seed. */
export function net(): Net {
  const rng = createRng(7);
  const g = new Graph();
  const x = g.input('x', [R, D]);
  const idx = g.input('idx', [E], 'u32');
  const act = g.input('act', [R], 'u32');
  const w = g.input('w', [R]);
  const ew = g.input('ew', [E, 1]);
  const p = (name: string, shape: number[]): Tensor =>
    g.param(
      name,
      shape,
      uniform(
        rng,
        shape.reduce((a, b) => a * b, 1),
        0.5,
      ),
    );
  const h = g.biasAct(g.matmul(x, p('w1', [D, H])), p('b1', [H]), 'tanh');
  const logits = g.matmul(h, p('wa', [H, A]));
  const probs = g.softmax(logits);
  const logp = g.logSoftmax(logits);
  const edge = g.matmul(g.gatherRows(h, idx), p('wb', [H, 1]));
  const loss = g.add(g.sum(g.mul(g.pick(logp, act), w)), g.sum(g.sum(g.mul(edge, ew))));
  return { g, probs, edge, opts: { loss, optimizer: { lr: 0.05 }, sharedPrefix: { x: 8 } } };
}

/** Inputs number `k`: rows in groups of four share their first 8 features. */
export function inputs(k: number): Record<string, Float32Array | Uint32Array> {
  const rng = createRng(100 + k);
  const x = uniform(rng, R * D, 1);
  for (let r = 0; r < R; r++) if (r % 4 !== 0) x.copyWithin(r * D, (r - (r % 4)) * D, (r - (r % 4)) * D + 8);
  return {
    x,
    idx: Uint32Array.from({ length: E }, () => Math.floor(rng.next() * R)),
    act: Uint32Array.from({ length: R }, () => Math.floor(rng.next() * A)),
    w: uniform(rng, R, 1),
    ew: uniform(rng, E, 1),
  };
}

/** Sets inputs number `k` on `m`. */
export const feed = (m: Model, k: number): void => {
  for (const [name, v] of Object.entries(inputs(k))) m.setInput(name, v);
};

/** The bit patterns of `x`, to compare floats exactly (NaN included). */
export const bits = (x: Float32Array): number[] =>
  Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));
