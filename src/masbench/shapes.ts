/**
 * Sub-task graph shapes, one per axis, before any wording. Nodes are numbered so that every dep
 * has a smaller index than its dependant (a topological order), which lets the generator evaluate
 * answers in one pass.
 *
 * Values of the other axes (documented in docs/masbench.md, checked by tests):
 *
 * | axis       | shape                                              | depth | breadth | parallel | horizon | robustness |
 * |------------|----------------------------------------------------|-------|---------|----------|---------|------------|
 * | depth      | one chain of v sub-tasks, the last asked           | v     | 1       | 1        | 1       | 0          |
 * | breadth    | v constants feeding one asked sub-task             | 2     | v       | 1        | 1       | 0          |
 * | parallel   | v separate two-step chains, each end asked         | 2     | 1       | v        | v       | 0          |
 * | horizon    | one constant feeding v asked sub-tasks             | 2     | 1       | 1        | v       | 0          |
 * | robustness | a 3-level tree (9 constants → 3 → 1 asked), v notes | 3     | 3       | 1        | 1       | v          |
 *
 * On the parallel axis the horizon equals v: a component without an asked sub-task would not
 * matter to the answer, so every component must be asked about once.
 */
import type { Rng } from '../core/rng.ts';
import type { Axis } from './schema.ts';

export interface ShapeNode {
  /** Indices of the nodes this one depends on; all smaller than its own index. */
  deps: number[];
}

export interface Shape {
  nodes: ShapeNode[];
  /** Indices of the asked nodes, in the order the question asks them. */
  asks: number[];
  /** Indices of the nodes that get a misleading note. */
  noted: number[];
}

/** Nodes in the robustness tree: 9 leaves, 3 middle nodes, 1 root. */
export const ROBUSTNESS_TREE_SIZE = 13;

export function shapeFor(axis: Axis, value: number, rng: Rng): Shape {
  switch (axis) {
    case 'depth':
      return {
        nodes: Array.from({ length: value }, (_, i) => ({ deps: i === 0 ? [] : [i - 1] })),
        asks: [value - 1],
        noted: [],
      };
    case 'breadth':
      return {
        nodes: [...Array.from({ length: value }, () => ({ deps: [] })), { deps: range(value) }],
        asks: [value],
        noted: [],
      };
    case 'parallel':
      return {
        nodes: range(value).flatMap((c) => [{ deps: [] }, { deps: [2 * c] }]),
        asks: rng.shuffle(range(value).map((c) => 2 * c + 1)),
        noted: [],
      };
    case 'horizon':
      return {
        nodes: [{ deps: [] }, ...range(value).map(() => ({ deps: [0] }))],
        asks: rng.shuffle(range(value).map((i) => i + 1)),
        noted: [],
      };
    case 'robustness': {
      if (value > ROBUSTNESS_TREE_SIZE) throw new Error(`robustness is at most ${ROBUSTNESS_TREE_SIZE}`);
      const leaves = range(9).map(() => ({ deps: [] }));
      const middles = range(3).map((m) => ({ deps: [3 * m, 3 * m + 1, 3 * m + 2] }));
      return {
        nodes: [...leaves, ...middles, { deps: [9, 10, 11] }],
        asks: [12],
        noted: rng.shuffle(range(ROBUSTNESS_TREE_SIZE)).slice(0, value),
      };
    }
  }
}

/**
 * Adds `count` distractors: sub-tasks the question states but never needs, as in iGSM. Each reads
 * one existing core node and is read by nothing and never asked, so it changes none of the five
 * measures: it adds no chain that ends at an asked node, has one dep (≤ every shape's breadth),
 * joins an existing component, and carries no note.
 */
export function addDistractors(shape: Shape, count: number, rng: Rng): Shape {
  const core = shape.nodes.length;
  const extra = range(count).map(() => ({ deps: [rng.int(core)] }));
  return { ...shape, nodes: [...shape.nodes, ...extra] };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
