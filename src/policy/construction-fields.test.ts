/**
 * `applyAction` and `withResult` write a standard state as an object literal instead of a spread
 * (faster in V8): the new state must be the spread form's, fields in the same order, and a state
 * with a field of its own keeps it. Designs write role instructions kept per role object.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import {
  actionMask,
  applyAction,
  initialState,
  toValidDesign,
  withResult,
  type ConstructionState,
} from './construction.ts';
import { DEFAULT_POOL, roleInstruction } from './roles.ts';
import type { PolicyAction } from './actions.ts';

const pool = DEFAULT_POOL;
const R = pool.roles.length;

/** The spread form of a step's new state, from the fields the step changed. */
function spreadForm(
  s: ConstructionState,
  next: ConstructionState,
  kind: PolicyAction['kind'],
): ConstructionState {
  const base = { ...s, step: next.step, lastAction: next.lastAction };
  if (kind === 'add') return { ...base, agents: next.agents, changed: next.changed, issued: next.issued };
  if (kind === 'delete') return { ...base, agents: next.agents, changed: next.changed };
  return { ...base, exited: next.exited, summarizerId: next.summarizerId };
}

const same = (a: object, b: object): void => {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  expect(JSON.stringify(a)).toBe(JSON.stringify(b));
};

describe('construction states', () => {
  it('are the spread form, field order included, with and without a field of their own', () => {
    const rng = createRng(77);
    for (let e = 0; e < 60; e++) {
      let s: ConstructionState = initialState(pool, { maxAgents: 5, maxSteps: 9 });
      if (e % 3 === 0) s = { ...s, note: `episode ${e}` } as ConstructionState;
      while (!s.exited) {
        const allowed = Array.from(actionMask(s), (m, i) => (m === 1 ? i : -1)).filter((i) => i >= 0);
        const col = allowed[Math.floor(rng.next() * allowed.length)] as number;
        const action: PolicyAction =
          col < R
            ? { kind: 'add', role: col, links: s.agents.filter(() => rng.next() < 0.5).map((a) => a.id) }
            : col === R
              ? { kind: 'delete' }
              : { kind: 'exit' };
        const next = applyAction(s, action).state;
        same(next, spreadForm(s, next, action.kind));
        if (e % 3 === 0) expect((next as ConstructionState & { note?: string }).note).toBe(`episode ${e}`);
        s = next;
        if (rng.next() < 0.6) {
          const answer = rng.next() < 0.2 ? null : `${Math.floor(rng.next() * 5)}`;
          const r = withResult(s, answer, answer === null ? null : rng.next() < 0.5);
          same(r, { ...s, results: r.results });
          expect(r.results.slice(0, -1)).toEqual(s.results);
          s = r;
        }
      }
    }
  });
});

describe('designs', () => {
  it('describe each agent with its role instruction, also after the role changed in place', () => {
    const roles = DEFAULT_POOL.roles.map((r) => ({ ...r }));
    const own = { ...DEFAULT_POOL, roles };
    let s = initialState(own, { maxAgents: 4, maxSteps: 6 });
    s = applyAction(s, { kind: 'add', role: 2, links: [] }).state;
    const role = roles[2] as (typeof roles)[number];
    expect(toValidDesign(s)?.agents[0]?.description).toBe(roleInstruction(role));
    role.prompt = `${role.prompt} Show the working.`;
    expect(toValidDesign(s)?.agents[0]?.description).toBe(roleInstruction(role));
    expect(toValidDesign(s)?.agents[0]?.description).toContain('Show the working.');
  });
});
