import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { DesignerSchema } from '../core/trace.ts';
import { parseDesignXml } from '../design/xml.ts';
import { DEFAULT_POOL, applyAction, initialState, toValidDesign } from '../policy/index.ts';
import { designOutcome } from './designer.ts';
import { FIXED_PROGRAMS, programDesign } from './teacher2.ts';
import { expandTinyDesign, tinyDesignText } from './tiny-format.ts';
import {
  ARCHIVE_ROLES,
  branchOf,
  designOfPlan2,
  planNotes,
  readTiny2,
  tiny2PlanOf,
  tiny2PlanText,
  tinyVersionOf,
  type Tiny2Plan,
} from './tiny2-format.ts';

const pool = DEFAULT_POOL;

const PARALLEL: Tiny2Plan = {
  dom: 'high',
  agents: [
    { role: 'Planner', links: [] },
    { role: 'Solver', links: [0] },
    { role: 'Solver', links: [0] },
    { role: 'Summarizer', links: [1, 2] },
  ],
};

describe('tiny2 format', () => {
  it('states the plan: the structure line, then one line per agent (what it does, what it reads)', () => {
    const notes = planNotes(PARALLEL, pool, { axis: 'parallel', value: 2 });
    expect(notes.split('\n')).toEqual([
      '2 independent sub-problems → 2 Solvers in parallel, then a merge',
      'planner-1: splits the task into independent parts, on the query',
      'solver-2: solves step by step, on planner-1',
      'solver-3: solves step by step, on planner-1',
      'summarizer-4: merges the outputs into one answer, merging solver-2, solver-3, final answer',
    ]);
    const chain: Tiny2Plan = {
      dom: 'high',
      agents: [
        { role: 'Decomposer', links: [] },
        { role: 'Solver', links: [0] },
        { role: 'Verifier', links: [1] },
      ],
    };
    expect(planNotes(chain, pool, { axis: 'depth', value: 7 }).split('\n')[0]).toBe(
      'a chain of 7 dependent steps → a chain of 3: Decomposer → Solver → Verifier',
    );
    expect(planNotes({ dom: 'low', agents: [], direct: '' }, pool)).toMatch(/answer directly/);
  });

  it('every fixed design, archive agent and the direct answer: text → read → the same runnable design', () => {
    const plans: Tiny2Plan[] = [
      ...Object.values(FIXED_PROGRAMS).map((p) => tiny2PlanOf(programDesign(p, pool), pool)),
      ...ARCHIVE_ROLES.map((r) => ({ dom: 'low' as const, agents: [{ role: r.name, links: [] }] })),
      { dom: 'low', agents: [], direct: '12' },
      PARALLEL,
    ];
    for (const plan of plans) {
      const notes = planNotes(plan, pool, { axis: 'breadth', value: 4 });
      const r = readTiny2(tiny2PlanText(plan, notes, pool), plan.dom, pool);
      if (!r.ok) throw new Error(r.problems.join('; '));
      expect(r.design).toEqual(designOfPlan2(plan, pool, notes));
      expect(r.plan.agents).toEqual(plan.agents);
    }
    const direct = readTiny2('<thinking>easy</thinking><answer>12</answer>', 'low', pool);
    expect(direct.ok && direct.branch).toBe('direct');
    expect(direct.ok && direct.design.directAnswer).toBe('12');
    expect(direct.ok && direct.design.agents).toEqual([]);
    // High DoM has no direct answer; a role outside the list is refused.
    expect(readTiny2('<thinking>x</thinking><answer>12</answer>', 'high', pool).ok).toBe(false);
    const bad = readTiny2(
      '<thinking>x</thinking><agent><agent_id>a-1</agent_id><agent_name>CoTAgent</agent_name><agent_description>Oracle</agent_description><required_arguments><agent_input></agent_input></required_arguments></agent><edge></edge>',
      'low',
      pool,
    );
    expect(bad.ok ? [] : bad.problems).toEqual(['Agent "a-1": "Oracle" is not a role of the v2 list.']);
  });

  it('an archive agent as a v2 role runs exactly as the archive design (no role instruction, archive defaults)', () => {
    const d = designOfPlan2({ dom: 'low', agents: [{ role: 'SC', links: [] }] }, pool);
    expect(d.agents[0]).toMatchObject({
      type: 'SCAgent',
      description: '',
      input: '',
      params: { samples: 5 },
    });
    const debate = designOfPlan2({ dom: 'low', agents: [{ role: 'Debate', links: [] }] }, pool);
    expect(debate.agents[0]?.params).toEqual({ debateRoles: ['Proponent', 'Skeptic'], maxRounds: 2 });
  });

  it('reads every version-1 design exactly as version 1 does', () => {
    let s = initialState(pool);
    s = applyAction(s, { kind: 'add', role: 0, links: [] }).state;
    s = applyAction(s, { kind: 'add', role: 2, links: [s.agents[0]?.id as string] }).state;
    const design = toValidDesign(applyAction(s, { kind: 'exit' }).state);
    if (!design) throw new Error('no design');
    for (const d of [design, programDesign(FIXED_PROGRAMS['Planner → 2 Solvers'] ?? [], pool)]) {
      const text = tinyDesignText(d, pool);
      const v1 = expandTinyDesign(parseDesignXml(text, 'high').design as never, pool);
      const v2 = readTiny2(text, 'high', pool);
      if (!v1.ok || !v2.ok) throw new Error('not read');
      expect(v2.design).toEqual(v1.design);
    }
  });

  it('tells the format version from config.json: the committed v1 folder is 1, a tiny2 folder 2', () => {
    const v1 = JSON.parse(readFileSync('models/baton-orchestrator-tiny/config.json', 'utf8')) as unknown;
    expect(tinyVersionOf(v1)).toBe(1);
    expect(tinyVersionOf({})).toBe(1);
    expect(tinyVersionOf({ baton: { provenance: { training: { format: 'tiny2' } } } })).toBe(2);
  });

  it('the designer record says which branch the design took; old records without it still parse', () => {
    const g = {
      promptText: 'q',
      promptTokens: 1,
      rawOutput: '',
      tokens: 3,
      firstTokenMs: 1,
      generateMs: 2,
      tokensPerSecond: 1,
      stopReason: 'eos' as const,
    };
    const input = {
      model: 'm',
      dtype: 'fp32' as const,
      device: 'cpu' as const,
      deviceReason: 'test',
      promptFormat: 'tiny' as const,
      dom: 'low' as const,
      constrained: true,
      temperature: 0,
      seed: 0,
    };
    const direct = readTiny2('<thinking>x</thinking><answer>3</answer>', 'low', pool);
    const one = readTiny2(
      tiny2PlanText({ dom: 'low', agents: [{ role: 'CoT', links: [] }] }, 'x', pool),
      'low',
      pool,
    );
    const mas = readTiny2(tiny2PlanText(PARALLEL, 'x', pool), 'high', pool);
    if (!direct.ok || !one.ok || !mas.ok) throw new Error('not read');
    expect(branchOf(mas.design)).toBe('mas');
    const rec = (design: typeof mas.design | null) =>
      designOutcome(g, { design, errors: [] }, input).designer;
    expect(rec(direct.design).branch).toBe('direct');
    expect(rec(one.design).branch).toBe('delegate');
    expect(rec(mas.design).branch).toBe('mas');
    expect(rec(null).branch).toBeUndefined();
    const old = { ...rec(one.design) } as Record<string, unknown>;
    delete old.branch;
    expect(DesignerSchema.safeParse(old).success).toBe(true);
    expect(DesignerSchema.safeParse(rec(direct.design)).success).toBe(true);
    expect(DesignerSchema.safeParse({ ...old, branch: 'sideways' }).success).toBe(false);
  });
});
