import { describe, expect, it } from 'vitest';
import { AXES, generateTask, measureAxes } from '../bench/masbench/index.ts';
import { hashString } from '../core/rng.ts';
import { applyAction, initialState } from './construction.ts';
import {
  AGENT,
  CUE,
  CUE_DIM,
  GRAPH,
  agentDim,
  agentFlagOffset,
  cueOffset,
  encodeAgents,
  encodeState,
  encodeTask,
  graphOffset,
  hashQuery,
  lastActionOffset,
  roleCountOffset,
  stateDim,
  taskCues,
} from './encoder.ts';
import { DEFAULT_POOL } from './roles.ts';

const pool = DEFAULT_POOL;
const cfg = { hashDim: 64, maxAgents: 6, maxSteps: 8, roles: pool.roles.length };

describe('query hashing', () => {
  it('is deterministic, L2-normalised, signed, and separates different texts', () => {
    const a = hashQuery('How many apples does each basket have?', 256);
    const b = hashQuery('How many apples does each basket have?', 256);
    const c = hashQuery('Write a poem about the sea.', 256);
    expect(a).toEqual(b);
    expect(Math.hypot(...a)).toBeCloseTo(1, 5);
    expect(a.some((x) => x < 0) && a.some((x) => x > 0)).toBe(true);
    const cos = a.reduce((s, x, i) => s + x * (c[i] as number), 0);
    expect(cos).toBeLessThan(0.5);
    expect(Array.from(hashQuery('', 32))).toEqual(new Array(32).fill(0));
  });
});

describe('MASBench cues', () => {
  it('recover depth, breadth, parallel, horizon and robustness of generated tasks exactly', () => {
    for (const axis of AXES) {
      for (const value of [2, 5, 12]) {
        const t = generateTask({ axis, value, seed: value * 7 });
        const m = measureAxes(t);
        const c = taskCues(t.question);
        expect(c.masbench).toBe(true);
        expect({
          depth: c.depth,
          breadth: c.breadth,
          parallel: c.parallel,
          horizon: c.asks,
          robustness: c.notes,
        }).toEqual(m);
      }
    }
  });

  it('are zero beyond surface counts for free text', () => {
    const c = taskCues('What is the capital of France? Answer briefly.');
    expect(c).toMatchObject({ masbench: false, depth: 0, parallel: 0, questionMarks: 1, asks: 1 });
  });
});

describe('state and agent features', () => {
  it('follow the documented layout', () => {
    const solver = pool.roles.findIndex((r) => r.name === 'Solver');
    let s = initialState(pool, { maxAgents: 6, maxSteps: 8 });
    s = applyAction(s, { kind: 'add', role: solver, links: [] }).state;
    s = applyAction(s, { kind: 'add', role: solver, links: ['solver-1'] }).state;
    const task = encodeTask(generateTask({ axis: 'depth', value: 6, seed: 1 }).question, cfg.hashDim);
    const v = encodeState(cfg, task, s);
    expect(v.length).toBe(stateDim(cfg));
    expect(stateDim(cfg)).toBe(cfg.hashDim + CUE_DIM + 3 * cfg.roles + 3 + 8);
    expect(v[cueOffset(cfg) + CUE.deep]).toBe(1);
    expect(v[cueOffset(cfg) + CUE.depth]).toBeCloseTo(6 / 12, 6);
    expect(v[roleCountOffset(cfg) + solver]).toBe(0.5);
    expect(v[lastActionOffset(cfg) + solver]).toBe(1);
    expect(v[graphOffset(cfg) + GRAPH.agents]).toBeCloseTo(2 / 6, 6);
    expect(v[graphOffset(cfg) + GRAPH.depth]).toBeCloseTo(2 / 6, 6);
    expect(v[graphOffset(cfg) + GRAPH.sinks]).toBeCloseTo(1 / 6, 6);
    expect(v[graphOffset(cfg) + GRAPH.step]).toBeCloseTo(2 / 8, 6);
    const a = encodeAgents(cfg, s);
    const w = agentDim(cfg);
    expect(a.length).toBe(cfg.maxAgents * w);
    const f = agentFlagOffset(cfg);
    expect([a[0], a[1 + solver], a[f + AGENT.latest], a[f + AGENT.sink], a[f + AGENT.start]]).toEqual([
      1, 1, 0, 0, 1,
    ]);
    expect([a[w], a[w + f + AGENT.latest], a[w + f + AGENT.sink], a[w + f + AGENT.start]]).toEqual([
      1, 1, 1, 0,
    ]);
    expect(Array.from(a.subarray(2 * w)).every((x) => x === 0)).toBe(true);
  });
});

describe('hash folding', () => {
  it('hashes the tagged n-grams exactly as hashString does', () => {
    // One word "ab": unigram w:ab and trigrams "c:ab" is too short, so only the unigram lands.
    const v = hashQuery('ab', 64);
    const bucket = hashString('w:ab') % 64;
    expect(Math.abs(v[bucket] as number)).toBeCloseTo(1, 6);
    expect(v.filter((x) => x !== 0)).toHaveLength(1);
  });
});
