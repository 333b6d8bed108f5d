import { describe, expect, it } from 'vitest';
import { AXES, generateTask, measureAxes } from '../masbench/index.ts';
import { hashString } from '../core/rng.ts';
import { applyAction, initialState, withResult, type ConstructionState } from './construction.ts';
import {
  AGENT,
  CUE,
  CUE_DIM,
  GRAPH,
  GRAPH_DIM,
  RESULT,
  RESULT_DIM,
  agentDim,
  agentFlagOffset,
  cueOffset,
  encodeAgents,
  encodeState,
  encodeTask,
  graphOffset,
  hashQuery,
  isRefusal,
  lastActionOffset,
  normalizeAnswer,
  resultOffset,
  roleCountOffset,
  stateDim,
  stateDimFor,
  taskCues,
} from './encoder.ts';
import { encodeGraph, graphInputs, maxLinks } from './links.ts';
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
    expect(stateDim(cfg)).toBe(cfg.hashDim + CUE_DIM + 3 * cfg.roles + 3 + GRAPH_DIM + RESULT_DIM);
    expect(stateDimFor(cfg, 1)).toBe(cfg.hashDim + CUE_DIM + 3 * cfg.roles + 3 + GRAPH_DIM);
    expect(resultOffset(cfg)).toBe(stateDimFor(cfg, 1));
    expect(Array.from(v.subarray(resultOffset(cfg)))).toEqual(new Array(RESULT_DIM).fill(0));
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

describe('answer normalisation', () => {
  it('compares the final \\boxed{…} content, else the last line; case and whitespace do not count', () => {
    expect(normalizeAnswer('Step 1: 3 + 4 = 7.\nSo the answer is \\boxed{ 7 }.')).toBe('7');
    expect(normalizeAnswer('\\boxed{3} first, then \\boxed{\\frac{1}{2}} at last')).toBe('\\frac{1}{2}');
    expect(normalizeAnswer('\\boxed  {Sunny   Farm}')).toBe('sunny farm');
    expect(normalizeAnswer('Thinking…\n  The Total Is   42 \n\n')).toBe('the total is 42');
    expect(normalizeAnswer('first line\r\nsecond  LINE\r\n')).toBe('second line');
    // An unclosed box is no box: the last line counts.
    expect(normalizeAnswer('done\n\\boxed{7')).toBe('\\boxed{7');
    // A closed box before an unclosed one still counts.
    expect(normalizeAnswer('\\boxed{5} and \\boxed{6')).toBe('5');
    // `\boxedfoo` is another command.
    expect(normalizeAnswer('\\boxedfoo{1}\nend')).toBe('end');
    expect(normalizeAnswer('')).toBe('');
    expect(normalizeAnswer(' \n\t\n')).toBe('');
    expect(normalizeAnswer('A: \\boxed{X}')).toBe(normalizeAnswer('a:\n\\boxed{  x }'));
  });

  it("recognises the roles' refusals", () => {
    expect(isRefusal('REFUSE: there is no arithmetic to do')).toBe(true);
    expect(isRefusal('  Refuse: no proposed answer')).toBe(true);
    expect(isRefusal('I looked at the inputs.\nREFUSE: a needed value is missing')).toBe(true);
    expect(isRefusal('\\boxed{REFUSE: missing value}')).toBe(true);
    expect(isRefusal('\\boxed{12}')).toBe(false);
    expect(isRefusal('I refuse to guess, but the answer is 4')).toBe(false);
    expect(isRefusal('')).toBe(false);
  });
});

describe('intermediate-answer features', () => {
  const solver = pool.roles.findIndex((r) => r.name === 'Solver');
  const task = encodeTask('What is 3 + 4?', cfg.hashDim);
  const add = (s: ConstructionState): ConstructionState =>
    applyAction(s, { kind: 'add', role: solver, links: [] }).state;
  const block = (s: ConstructionState): number[] =>
    Array.from(encodeState(cfg, task, s).subarray(resultOffset(cfg), resultOffset(cfg) + RESULT_DIM));
  const at = (v: number[], k: keyof typeof RESULT): number => v[RESULT[k]] as number;

  it('read the answers of the latest runs', () => {
    const s0 = initialState(pool, { maxAgents: 6, maxSteps: 8 });
    const s1 = withResult(add(s0), 'Let me see.\n\\boxed{7}', null);
    let v = block(s1);
    expect(v).toEqual([1, 0, 0, 1 / 3, 1 / 8].map(Math.fround));
    // Same answer in other words: agree.
    const s2 = withResult(add(s1), 'The total is \\boxed{ 7 }', null);
    v = block(s2);
    expect([at(v, 'answered'), at(v, 'refused'), at(v, 'agree')]).toEqual([1, 0, 1]);
    expect(at(v, 'distinct')).toBeCloseTo(1 / 3, 6);
    expect(at(v, 'recorded')).toBeCloseTo(2 / 8, 6);
    // A refusal: refused, no agreement, not an answer for `distinct`.
    const s3 = withResult(add(s2), 'REFUSE: there is no arithmetic to do', null);
    v = block(s3);
    expect([at(v, 'answered'), at(v, 'refused'), at(v, 'agree')]).toEqual([1, 1, 0]);
    expect(at(v, 'distinct')).toBeCloseTo(1 / 3, 6);
    // Three different answers in the last three runs.
    const s4 = withResult(add(withResult(add(s3), '\\boxed{8}', null)), '\\boxed{9}', null);
    v = block(s4);
    expect([at(v, 'answered'), at(v, 'refused'), at(v, 'agree')]).toEqual([1, 0, 0]);
    expect(at(v, 'distinct')).toBeCloseTo(2 / 3, 6);
    const s5 = withResult(add(s4), '\\boxed{10}', null);
    expect(at(block(s5), 'distinct')).toBeCloseTo(1, 6);
  });

  it('say nothing about an answer of an earlier graph or a run without an answer', () => {
    const s0 = initialState(pool, { maxAgents: 6, maxSteps: 8 });
    const s2 = withResult(add(withResult(add(s0), '\\boxed{7}', null)), '\\boxed{7}', null);
    expect(at(block(s2), 'agree')).toBe(1);
    // The next action has not been run yet: the newest answer is stale.
    const stale = block(add(s2));
    expect([at(stale, 'answered'), at(stale, 'refused'), at(stale, 'agree')]).toEqual([0, 0, 0]);
    expect(at(stale, 'recorded')).toBeCloseTo(2 / 8, 6);
    const failed = block(withResult(add(s2), null, null));
    expect([at(failed, 'answered'), at(failed, 'agree')]).toEqual([0, 0]);
    const refusedStale = block(add(withResult(add(s2), 'REFUSE: no input', null)));
    expect(at(refusedStale, 'refused')).toBe(0);
  });

  it('never read correctness (the label)', () => {
    const s0 = initialState(pool, { maxAgents: 6, maxSteps: 8 });
    const run = (c1: boolean | null, c2: boolean | null): Float32Array =>
      encodeState(cfg, task, withResult(add(withResult(add(s0), '\\boxed{7}', c1)), '\\boxed{7}', c2));
    const ref = run(null, null);
    expect(ref[resultOffset(cfg) + RESULT.agree]).toBe(1);
    for (const [a, b] of [
      [true, true],
      [false, true],
      [true, false],
      [false, false],
    ] as const)
      expect(run(a, b)).toEqual(ref);
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

describe('the links, for message passing (encoder version 3)', () => {
  const enc = { hashDim: 16, maxAgents: 4, maxSteps: 8, roles: DEFAULT_POOL.roles.length };
  const add = (st: ConstructionState, role: number, links: string[] = []): ConstructionState =>
    applyAction(st, { kind: 'add', role, links }).state;

  it('lists every link once with mean weights, and readout weights over agents and sinks', () => {
    // planner-1 → solver-2, planner-1 → solver-3, {solver-2, solver-3} → verifier-4
    let st = initialState(DEFAULT_POOL, { maxAgents: 4, maxSteps: 8 });
    st = add(st, 1);
    st = add(st, 2, ['planner-1']);
    st = add(st, 2, ['planner-1']);
    st = add(st, 5, ['solver-2', 'solver-3']);
    expect(maxLinks(enc)).toBe(6);
    const gi = encodeGraph(enc, st, graphInputs(enc, 2), 1);
    // State 1 owns slots 6..11 and rows 4..7; slot order: reader by reader, link by link.
    expect(Array.from(gi.msgFrom.slice(6))).toEqual([4, 4, 5, 6, 4, 4]);
    expect(Array.from(gi.msgTo.slice(6))).toEqual([5, 6, 7, 7, 4, 4]);
    expect(Array.from(gi.inWeight.slice(6))).toEqual([1, 1, 0.5, 0.5, 0, 0]);
    expect(Array.from(gi.outWeight.slice(6))).toEqual([0.5, 0.5, 1, 1, 0, 0]);
    expect(Array.from(gi.readMean.slice(4))).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(Array.from(gi.readSink.slice(4))).toEqual([0, 0, 0, 1]);
    expect(Array.from(gi.agentBatch)).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    // State 0's slots are untouched: weight 0 everywhere.
    expect(gi.inWeight.slice(0, 6).every((x) => x === 0)).toBe(true);
    expect(gi.readMean.slice(0, 4).every((x) => x === 0)).toBe(true);
  });

  it('an empty graph has no messages and nothing to read out; a full DAG fills every slot', () => {
    const empty = encodeGraph(
      enc,
      initialState(DEFAULT_POOL, { maxAgents: 4, maxSteps: 8 }),
      graphInputs(enc, 1),
    );
    expect(empty.inWeight.every((x) => x === 0)).toBe(true);
    expect(empty.readMean.every((x) => x === 0) && empty.readSink.every((x) => x === 0)).toBe(true);
    let st = initialState(DEFAULT_POOL, { maxAgents: 4, maxSteps: 8 });
    st = add(st, 2);
    st = add(st, 2, ['solver-1']);
    st = add(st, 2, ['solver-1', 'solver-2']);
    st = add(st, 2, ['solver-1', 'solver-2', 'solver-3']);
    const full = encodeGraph(enc, st, graphInputs(enc, 1));
    expect(Array.from(full.inWeight).every((x) => x > 0)).toBe(true);
    const sums = new Map<number, number>();
    full.msgTo.forEach((k, m) => sums.set(k, (sums.get(k) ?? 0) + (full.inWeight[m] as number)));
    // Each reader's incoming weights sum to 1: the messages into it average.
    expect([...sums.values()].map((x) => Math.round(x * 1e6) / 1e6)).toEqual([1, 1, 1]);
    expect(Array.from(full.readSink)).toEqual([0, 0, 0, 1]);
  });
});
