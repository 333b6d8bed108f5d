import { describe, expect, it } from 'vitest';
import type { Design } from '../core/trace.ts';
import { parseDesignXml } from '../design/xml.ts';
import { validateDesign, fromDesign } from '../design/validate.ts';
import { generateTask, taskOfMasbench, type Axis } from '../masbench/index.ts';
import { BatchedPolicy, DEFAULT_POOL, constructMany, priorCheckpoint } from '../policy/index.ts';
import {
  canonicalDesign,
  expandTinyDesign,
  tinyDesignText,
  tinyPlanOf,
  tinyPromptIds,
  tinyRoles,
} from './tiny-format.ts';

const pool = DEFAULT_POOL;
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const AXES: Axis[] = ['depth', 'horizon', 'breadth', 'parallel', 'robustness'];

async function priorDesigns(n: number): Promise<Design[]> {
  const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: n });
  const built = await constructMany({
    policy,
    pool,
    episodes: Array.from({ length: n }, (_, i) => ({
      task: taskOfMasbench(generateTask({ axis: AXES[i % 5] as Axis, value: 2 + (i % 5), seed: 100 + i })),
      seed: 7 * i + 1,
    })),
  });
  policy.dispose();
  return built.map((c) => c.design);
}

describe('the tiny design format', () => {
  it('writes a policy design so that parse → expand gives its canonical design back exactly', async () => {
    const designs = await priorDesigns(20);
    for (const d of designs) {
      const canon = canonicalDesign(d, pool);
      expect(validateDesign(fromDesign(canon))).toEqual([]);
      // Same roles, types, debate roles and links as the policy's design; only ids are renumbered.
      expect(canon.agents.map((a) => [a.role, a.type, a.description, a.params])).toEqual(
        d.agents.map((a) => [a.role, a.type, a.description, a.params]),
      );
      expect(canon.edges.length).toBe(d.edges.length);
      const text = tinyDesignText(canon, pool);
      expect(text).toBe(tinyDesignText(d, pool));
      expect(text).not.toMatch(/>\s|\s</);
      const parsed = parseDesignXml(text, 'high');
      expect(parsed.problems).toEqual([]);
      const back = expandTinyDesign(parsed.design as NonNullable<typeof parsed.design>, pool);
      expect(back.ok).toBe(true);
      if (back.ok) expect(back.design).toEqual(canon);
    }
    // The sample holds debates (debate roles come back from the pool) and branching designs.
    const all = designs.map((d) => canonicalDesign(d, pool));
    expect(all.some((d) => d.agents.some((a) => a.params.debateRoles !== undefined))).toBe(true);
    expect(all.some((d) => d.agents.some((a) => d.edges.filter((e) => e.to === a.id).length > 1))).toBe(true);
  });

  it('writes one-agent low designs with an empty edge block', () => {
    const plan = { dom: 'low' as const, agents: [{ role: 'Debate Panel', links: [] }] };
    const text = tinyDesignText(
      {
        dom: 'low',
        agents: [
          { id: 'x', type: 'DebateAgent', description: '', input: '', role: 'Debate Panel', params: {} },
        ],
        edges: [],
      },
      pool,
    );
    expect(text).toContain('<edge></edge>');
    const parsed = parseDesignXml(text, 'low');
    const back = expandTinyDesign(parsed.design as NonNullable<typeof parsed.design>, pool);
    expect(back.ok && back.plan).toEqual(plan);
    expect(back.ok && back.design.agents[0]?.params.debateRoles).toEqual(['Proponent', 'Skeptic']);
  });

  it('refuses unknown roles, wrong types, backward or missing references', () => {
    const expand = (text: string) =>
      expandTinyDesign(
        parseDesignXml(text, 'high').design as NonNullable<ReturnType<typeof parseDesignXml>['design']>,
        pool,
      );
    const agent = (id: string, type: string, role: string, input: string) =>
      `<agent><agent_id>${id}</agent_id><agent_name>${type}</agent_name><agent_description>${role}</agent_description><required_arguments><agent_input>${input}</agent_input></required_arguments></agent>`;
    const unknown = expand(agent('a1', 'CoTAgent', 'Oracle', '') + '<edge></edge>');
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.problems[0]).toMatch(/not a role of the pool/);
    const wrongType = expand(agent('a1', 'SCAgent', 'Solver', '') + '<edge></edge>');
    expect(!wrongType.ok && wrongType.problems[0]).toMatch(/runs as CoTAgent/);
    const forward = expand(
      agent('a1', 'CoTAgent', 'Solver', '${a2}') +
        agent('a2', 'CoTAgent', 'Solver', '') +
        '<edge><from>a2</from><to>a1</to></edge>',
    );
    expect(!forward.ok && forward.problems[0]).toMatch(/not an earlier agent/);
    const noEdge = expand(
      agent('a1', 'CoTAgent', 'Solver', '') + agent('a2', 'CoTAgent', 'Verifier', '${a1}') + '<edge></edge>',
    );
    expect(noEdge.ok).toBe(false);
    expect(expand('<thinking></thinking><edge></edge>').ok).toBe(false);
    const twoSinks = expand(
      agent('a1', 'CoTAgent', 'Solver', '') + agent('a2', 'CoTAgent', 'Solver', '') + '<edge></edge>',
    );
    expect(!twoSinks.ok && twoSinks.problems.join(' ')).toMatch(/sink/);
  });

  it('lists the pool roles then the summariser, and builds prompts within the budget', () => {
    expect(tinyRoles(pool).map((r) => r.name)).toEqual([...pool.roles.map((r) => r.name), 'Summarizer']);
    const encode = (s: string): number[] =>
      s === '<|dom_low|>'
        ? [2]
        : s === '<|dom_high|>'
          ? [3]
          : s === '<|design|>'
            ? [4]
            : Array.from(s, (c) => c.charCodeAt(0));
    expect(tinyPromptIds('  ab \n c ', 'low', encode, 10)).toEqual([2, 97, 98, 32, 99, 4]);
    expect(tinyPromptIds('abcdef', 'high', encode, 3)).toEqual([3, 100, 101, 102, 4]);
    expect(() =>
      tinyPlanOf(
        {
          dom: 'high',
          agents: [{ id: 'a', type: 'CoTAgent', description: '', input: '', params: {} }],
          edges: [],
        },
        pool,
      ),
    ).toThrow(/role/);
  });
});
