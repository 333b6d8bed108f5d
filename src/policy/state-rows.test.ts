import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../core/rng.ts';
import { actionMask, applyAction, initialState, withResult, type ConstructionState } from './construction.ts';
import { encodeTask, stateDim, type EncoderConfig } from './encoder.ts';
import { PackedStates } from './pack.ts';
import { seededStepDraws, stepRng } from './sample.ts';
import { DEFAULT_POOL } from './roles.ts';

const pool = DEFAULT_POOL;
const R = pool.roles.length;
const ANSWERS = [
  null,
  '7',
  'The answer is\n\\boxed{7}',
  '\\boxed{ 7 }',
  'REFUSE: not my field',
  'Thinking…\nrefuse, too vague',
  '',
  '  \n ',
  '\\boxed{12}\nso 12',
  'Forty-two',
  'forty-two',
];

/** A random construction from the action mask, with random intermediate answers after some steps. */
function randomStates(rng: Rng, limits: { maxAgents: number; maxSteps: number }): ConstructionState[] {
  const out: ConstructionState[] = [];
  let s = initialState(pool, limits);
  out.push(s);
  while (!s.exited) {
    const mask = actionMask(s);
    const allowed = Array.from(mask, (m, i) => (m === 1 ? i : -1)).filter((i) => i >= 0);
    const col = allowed[Math.floor(rng.next() * allowed.length)] as number;
    const action =
      col < R
        ? { kind: 'add' as const, role: col, links: s.agents.filter(() => rng.next() < 0.5).map((a) => a.id) }
        : col === R
          ? { kind: 'delete' as const }
          : { kind: 'exit' as const };
    s = applyAction(s, action).state;
    if (rng.next() < 0.7) {
      const a = ANSWERS[Math.floor(rng.next() * ANSWERS.length)] ?? null;
      s = withResult(s, a, rng.next() < 0.5);
    }
    out.push(s);
  }
  return out;
}

const bits = (a: Float32Array | Uint32Array): number[] =>
  Array.from(a instanceof Float32Array ? new Uint32Array(a.buffer, a.byteOffset, a.length) : a);

/** Every buffer and count of two packings, as bit patterns. */
function packedBits(p: PackedStates): Record<string, number[] | number> {
  const out: Record<string, number[] | number> = {
    states: p.states,
    rows: p.rows,
    links: p.links,
    edges: p.edges,
  };
  for (const k of [
    'state',
    'mask',
    'action',
    'agents',
    'agentBatch',
    'readMean',
    'readSink',
    'msgFrom',
    'msgTo',
    'inWeight',
    'outWeight',
    'firstRow',
    'agentCount',
    'firstLink',
    'linkCount',
  ] as const)
    out[k] = bits(p[k]);
  return out;
}

function compare(enc: EncoderConfig, states: readonly ConstructionState[], graph: boolean): void {
  const task = encodeTask('How many apples? Answer these 2 questions. Note: 3 + 4 = 7.', enc.hashDim);
  const fast = new PackedStates(enc, states.length, 1, graph);
  const ref = new PackedStates(enc, states.length, 1, graph);
  // Dirty buffers first: the fast form must overwrite everything the reference form writes.
  for (const s of states) fast.add(task, s);
  fast.clear();
  for (const s of [...states].reverse()) fast.add(task, s);
  fast.clear();
  for (const s of states) {
    const b = fast.add(task, s);
    expect(ref.addReference(task, s)).toBe(b);
  }
  expect(packedBits(fast)).toEqual(packedBits(ref));
}

describe('packed state rows: the fast form equals the reference encoders bit for bit', () => {
  it('on random constructions with intermediate answers (agreeing, refused, empty, boxed)', () => {
    const rng = createRng(12345);
    for (const limits of [
      { maxAgents: 4, maxSteps: 8 },
      { maxAgents: 6, maxSteps: 12 },
      { maxAgents: 12, maxSteps: 16 },
    ]) {
      const enc = { hashDim: 32, ...limits, roles: R };
      for (let e = 0; e < 40; e++) {
        const states = randomStates(rng, limits);
        compare(enc, states, true);
        compare(enc, states, false);
      }
    }
  });

  it('on hand-built states: links to unknown ids, more agents than slots, a repeated id', () => {
    const enc = { hashDim: 16, maxAgents: 3, maxSteps: 6, roles: R };
    let s = initialState(pool, { maxAgents: 8, maxSteps: 6 });
    for (let i = 0; i < 5; i++)
      s = applyAction(s, { kind: 'add', role: i % R, links: s.agents.slice(-2).map((a) => a.id) }).state;
    // Five agents for three slots: the state vector counts all, the rows and links the first three.
    const dangling: ConstructionState = {
      ...s,
      agents: s.agents.map((a, i) => (i === 1 ? { ...a, links: [...a.links, 'gone-9'] } : a)),
    };
    const first = s.agents[0] as ConstructionState['agents'][number];
    const repeated: ConstructionState = {
      ...s,
      agents: [...s.agents.slice(0, 2), { ...first, links: [] }],
      lastAction: null,
      changed: [],
    };
    compare(enc, [s, dangling, repeated, initialState(pool, { maxAgents: 8, maxSteps: 6 })], true);
    expect(stateDim(enc)).toBeGreaterThan(0);
  });

  it('reads a result again when its answer was changed in place', () => {
    const enc = { hashDim: 16, maxAgents: 4, maxSteps: 6, roles: R };
    let s = initialState(pool, { maxAgents: 4, maxSteps: 6 });
    s = withResult(applyAction(s, { kind: 'add', role: 0, links: [] }).state, '7', true);
    s = withResult(applyAction(s, { kind: 'add', role: 1, links: [] }).state, '7', true);
    compare(enc, [s], true);
    (s.results[1] as { answer: string | null }).answer = 'REFUSE: not mine';
    compare(enc, [s], true);
    (s.results[0] as { answer: string | null }).answer = null;
    compare(enc, [s], true);
  });

  it('refuses more links than message slots, as the reference form does', () => {
    const enc = { hashDim: 16, maxAgents: 3, maxSteps: 6, roles: R };
    let s = initialState(pool, { maxAgents: 3, maxSteps: 6 });
    s = applyAction(s, { kind: 'add', role: 0, links: [] }).state;
    s = applyAction(s, { kind: 'add', role: 0, links: [] }).state;
    const ids = s.agents.map((a) => a.id);
    // A hand-built third agent that names both, twice: 4 links among 3 agents (at most 3).
    const bad: ConstructionState = {
      ...s,
      agents: [
        ...s.agents,
        { ...(s.agents[0] as ConstructionState['agents'][number]), id: 'x-9', links: [...ids, ...ids] },
      ],
    };
    const task = encodeTask('q', enc.hashDim);
    expect(() => new PackedStates(enc, 1, 1, true).addReference(task, bad)).toThrow(/more than 3 links/);
    expect(() => new PackedStates(enc, 1, 1, true).add(task, bad)).toThrow(/more than 3 links/);
  });
});

describe('seeded step draws', () => {
  it('are the uniforms stepRng(seed, t) gives, node first, then one per agent', () => {
    let s = initialState(pool, { maxAgents: 12, maxSteps: 16 });
    for (let n = 0; n <= 12; n++) {
      for (const seed of [0, 1, 7, 0x7fffffff, 0xffffffff, 123456789, -5]) {
        const rng = stepRng(seed, s.step);
        const node = rng.next();
        const edges = s.agents.map(() => rng.next());
        expect(seededStepDraws(seed, s)).toEqual({ node, edges });
      }
      if (n < 12) s = applyAction(s, { kind: 'add', role: n % R, links: [] }).state;
    }
  });
});
