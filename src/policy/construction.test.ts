import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { referencesIn } from '../design/references.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { deleteIndex, exitIndex, type PolicyAction } from './actions.ts';
import {
  SUMMARIZER_ID,
  actionMask,
  applyAction,
  initialState,
  lastChanged,
  sinksOf,
  toValidDesign,
  type ConstructionState,
} from './construction.ts';
import { DEFAULT_POOL } from './roles.ts';

const pool = DEFAULT_POOL;
const SOLVER = pool.roles.findIndex((r) => r.name === 'Solver');
const DEBATE = pool.roles.findIndex((r) => r.name === 'Debate Panel');
const add = (role: number, links: string[] = []): PolicyAction => ({ kind: 'add', role, links });

function run(actions: PolicyAction[], s = initialState(pool)): ConstructionState {
  return actions.reduce((st, a) => applyAction(st, a).state, s);
}

describe('construction state machine', () => {
  it('ADD wires edges existing → new and ${id} references (rule 9)', () => {
    const s = run([add(SOLVER), add(SOLVER), add(DEBATE, ['solver-1', 'solver-2'])]);
    const d = toValidDesign(s);
    expect(d).not.toBeNull();
    expect(d?.edges).toEqual([
      { from: 'solver-1', to: 'debate-panel-3' },
      { from: 'solver-2', to: 'debate-panel-3' },
    ]);
    expect(referencesIn(d?.agents.find((a) => a.id === 'debate-panel-3')?.input ?? '')).toEqual([
      'solver-1',
      'solver-2',
    ]);
    expect(
      d?.agents.find((a) => a.id === 'debate-panel-3')?.params.debateRoles?.length,
    ).toBeGreaterThanOrEqual(2);
    expect(validateDesign(fromDesign(d as NonNullable<typeof d>))).toEqual([]);
  });

  it('DELETE removes the most recently changed agent with its edges; ids are not reused', () => {
    const s1 = run([add(SOLVER), add(SOLVER, ['solver-1'])]);
    expect(lastChanged(s1)).toBe('solver-2');
    const del = applyAction(s1, { kind: 'delete' });
    expect(del.record).toEqual({ kind: 'delete', agentId: 'solver-2' });
    expect(del.state.agents.map((a) => a.id)).toEqual(['solver-1']);
    expect(toValidDesign(del.state)?.edges).toEqual([]);
    const again = applyAction(del.state, add(SOLVER));
    expect(again.record).toMatchObject({ kind: 'add', agentId: 'solver-3' });
    // The argument is never changed (undo keeps old states).
    expect(s1.agents.map((a) => a.id)).toEqual(['solver-1', 'solver-2']);
  });

  it('DELETE fixes the readers of the deleted agent', () => {
    const s = run([add(SOLVER), add(SOLVER, ['solver-1'])]);
    // A state where an older agent is the most recently changed (as after a user edit).
    const edited: ConstructionState = { ...s, changed: ['solver-2', 'solver-1'] };
    const d = applyAction(edited, { kind: 'delete' });
    expect(d.record).toEqual({ kind: 'delete', agentId: 'solver-1' });
    expect(d.state.agents).toHaveLength(1);
    expect(d.state.agents[0]?.links).toEqual([]);
    expect(d.state.agents[0]?.depth).toBe(1);
    const design = toValidDesign(d.state);
    expect(design?.agents[0]?.input).toBe('');
    expect(validateDesign(fromDesign(design as NonNullable<typeof design>))).toEqual([]);
  });

  it('EXIT adds a summariser fed by every sink, so the design has exactly one sink', () => {
    const s = run([add(SOLVER), add(SOLVER), add(SOLVER, ['solver-1'])]);
    expect(sinksOf(s.agents).map((a) => a.id)).toEqual(['solver-2', 'solver-3']);
    const partial = toValidDesign(s);
    expect(partial?.agents.some((a) => a.id === SUMMARIZER_ID)).toBe(true);
    const e = applyAction(s, { kind: 'exit' });
    expect(e.record).toEqual({ kind: 'exit', summarizerId: SUMMARIZER_ID });
    const d = toValidDesign(e.state);
    const sum = d?.agents.find((a) => a.id === SUMMARIZER_ID);
    expect(sum?.type).toBe('SummarizerAgent');
    expect(referencesIn(sum?.input ?? '').sort()).toEqual(['solver-2', 'solver-3']);
    expect(validateDesign(fromDesign(d as NonNullable<typeof d>))).toEqual([]);
    expect(Array.from(actionMask(e.state)).every((m) => m === 0)).toBe(true);
  });

  it('a partial MAS with one sink runs as it is; after EXIT a summariser is always added', () => {
    const s = run([add(SOLVER), add(SOLVER, ['solver-1'])]);
    expect(toValidDesign(s)?.agents.map((a) => a.id)).toEqual(['solver-1', 'solver-2']);
    expect(toValidDesign(run([{ kind: 'exit' }], s))?.agents.map((a) => a.id)).toEqual([
      'solver-1',
      'solver-2',
      SUMMARIZER_ID,
    ]);
    expect(toValidDesign(initialState(pool))).toBeNull();
  });

  it('masks: DELETE and EXIT need an agent, ADD needs room, the last step forces EXIT', () => {
    const limits = { maxAgents: 2, maxSteps: 4 };
    const s0 = initialState(pool, limits);
    const m0 = actionMask(s0);
    expect(m0[deleteIndex(pool)]).toBe(0);
    expect(m0[exitIndex(pool)]).toBe(0);
    expect(m0[SOLVER]).toBe(1);
    expect(() => applyAction(s0, { kind: 'exit' })).toThrow(/not allowed/);
    const s2 = run([add(SOLVER), add(SOLVER)], s0);
    const m2 = actionMask(s2);
    expect(m2[SOLVER]).toBe(0);
    expect(m2[deleteIndex(pool)]).toBe(1);
    const s3 = run([{ kind: 'delete' }], s2);
    const m3 = actionMask(s3);
    expect(Array.from(m3).reduce((a, b) => a + b, 0)).toBe(1);
    expect(m3[exitIndex(pool)]).toBe(1);
  });

  it('rejects unknown and repeated links', () => {
    const s = run([add(SOLVER)]);
    expect(() => applyAction(s, add(SOLVER, ['nope']))).toThrow(/not an agent/);
    expect(() => applyAction(s, add(SOLVER, ['solver-1', 'solver-1']))).toThrow(/twice/);
  });

  it('any allowed action sequence gives a valid design (random walk, 300 episodes)', () => {
    const rng = createRng(11);
    for (let ep = 0; ep < 300; ep++) {
      let s = initialState(pool, { maxAgents: 1 + rng.int(8), maxSteps: 2 + rng.int(14) });
      while (!s.exited) {
        const mask = actionMask(s);
        const allowed = Array.from(mask.keys()).filter((i) => mask[i] === 1);
        const col = rng.pick(allowed);
        const a: PolicyAction =
          col === deleteIndex(pool)
            ? { kind: 'delete' }
            : col === exitIndex(pool)
              ? { kind: 'exit' }
              : add(
                  col,
                  s.agents.filter(() => rng.next() < 0.4).map((x) => x.id),
                );
        s = applyAction(s, a).state;
        const d = toValidDesign(s);
        if (d) expect(validateDesign(fromDesign(d))).toEqual([]);
      }
      expect(s.step).toBeLessThanOrEqual(s.limits.maxSteps + 1);
    }
  });
});
