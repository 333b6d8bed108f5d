import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { actionMask, applyAction, initialState, type ConstructionState } from './construction.ts';
import { encodeTask } from './encoder.ts';
import { PackedStates } from './pack.ts';
import { DEFAULT_POOL } from './roles.ts';

const pool = DEFAULT_POOL;
const R = pool.roles.length;
const enc = { hashDim: 32, maxAgents: 6, maxSteps: 10, roles: R };
const task = encodeTask('How many pears does each farm have?', enc.hashDim);

/** States of random constructions, each with the edge targets of a random role over its agents. */
function source(seed: number, edgesInOrder: boolean): PackedStates {
  const rng = createRng(seed);
  const states: ConstructionState[] = [];
  while (states.length < 40) {
    let s = initialState(pool, { maxAgents: enc.maxAgents, maxSteps: enc.maxSteps });
    while (!s.exited) {
      states.push(s);
      const allowed = Array.from(actionMask(s), (m, i) => (m === 1 ? i : -1)).filter((i) => i >= 0);
      const col = allowed[Math.floor(rng.next() * allowed.length)] as number;
      const links = s.agents.filter(() => rng.next() < 0.5).map((a) => a.id);
      s = applyAction(
        s,
        col < R ? { kind: 'add', role: col, links } : col === R ? { kind: 'delete' } : { kind: 'exit' },
      ).state;
    }
  }
  const p = new PackedStates(enc, states.length, states.length * enc.maxAgents, true);
  const edges = (b: number): void => {
    const n = p.agentCount[b] as number;
    if (n > 0 && b % 3 !== 1)
      p.addEdges(
        b,
        b % R,
        Array.from({ length: n }, (_, i) => (i + b) % 2),
      );
  };
  states.forEach((s, b) => {
    p.add(task, s);
    p.action[b] = b % (R + 2);
    if (edgesInOrder) edges(b);
  });
  if (!edgesInOrder) for (let b = states.length - 1; b >= 0; b--) edges(b);
  return p;
}

function snapshot(p: PackedStates): Record<string, number[] | number> {
  const out: Record<string, number[] | number> = {
    states: p.states,
    rows: p.rows,
    links: p.links,
    edges: p.edges,
  };
  for (const [k, v] of Object.entries(p))
    if (v instanceof Float32Array) out[k] = Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));
    else if (v instanceof Uint32Array) out[k] = Array.from(v);
  return out;
}

describe('PackedStates.copyRange', () => {
  it('leaves the buffers exactly as copying the states one by one does', () => {
    for (const inOrder of [true, false]) {
      const src = source(inOrder ? 5 : 6, inOrder);
      for (const [from, count] of [
        [0, 16],
        [7, 16],
        [30, 10],
        [3, 1],
      ] as const) {
        const a = new PackedStates(enc, 24, 24 * enc.maxAgents, true);
        const b = new PackedStates(enc, 24, 24 * enc.maxAgents, true);
        // Something packed before, and dirty buffers from an earlier minibatch.
        for (const x of [a, b]) {
          for (let r = 20; r < 40; r++) x.copy(src, r);
          x.clear();
          x.copy(src, 2);
        }
        a.copyRange(src, from, count);
        for (let r = from; r < from + count; r++) b.copy(src, r);
        expect(snapshot(a)).toEqual(snapshot(b));
        expect(a.states).toBe(count + 1);
      }
    }
  });

  it('refuses more states or edge rows than it has room for, as copy does', () => {
    const src = source(7, true);
    expect(() => new PackedStates(enc, 4, 24, true).copyRange(src, 0, 5)).toThrow(/more than 4 states/);
    expect(() => new PackedStates(enc, 8, 2, true).copyRange(src, 0, 8)).toThrow(/more than 2 edge rows/);
  });
});

describe('PackedStates.feedEdges', () => {
  it('writes the edge inputs feed writes, and nothing else', () => {
    const src = source(8, true);
    const p = new PackedStates(enc, 8, 8 * enc.maxAgents, true);
    for (let r = 0; r < 8; r++) p.copy(src, r);
    p.clearEdges();
    p.addEdges(1, 2);
    p.addEdges(4, 0);
    const record = (): {
      sink: { setInput: (n: string, d: Float32Array | Uint32Array, rows?: number) => void };
      seen: Map<string, [number[], number | undefined]>;
    } => {
      const seen = new Map<string, [number[], number | undefined]>();
      return {
        seen,
        sink: { setInput: (n, d, rows) => seen.set(n, [Array.from(d.slice(0, rows ?? d.length)), rows]) },
      };
    };
    for (const blind of [false, true]) {
      const all = record();
      const edges = record();
      p.feed(all.sink, { blind });
      p.feedEdges(edges.sink, { blind });
      const names = ['edgeAgent', 'edgeRole', 'edgeBatch', ...(blind ? ['edgeZero'] : [])];
      expect([...edges.seen.keys()]).toEqual(names);
      for (const n of names) expect(edges.seen.get(n)).toEqual(all.seen.get(n));
      expect(edges.seen.get('edgeAgent')?.[1]).toBe(
        (p.agentCount[1] as number) + (p.agentCount[4] as number),
      );
    }
  });
});
