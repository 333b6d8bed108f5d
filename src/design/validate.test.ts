import { describe, expect, it } from 'vitest';
import type { RawAgent, RawDesign } from './raw.ts';
import { validateDesign, type RuleNumber } from './validate.ts';
import { parseDesign } from './parse.ts';

const agent = (id: string, input = '', type = 'CoTAgent', extra: Partial<RawAgent> = {}): RawAgent => ({
  id,
  type,
  description: `agent ${id}`,
  input,
  ...extra,
});
const high = (agents: RawAgent[], edges: [string, string][]): RawDesign => ({
  dom: 'high',
  agents,
  edges: edges.map(([from, to]) => ({ from, to })),
});
const rules = (d: RawDesign): RuleNumber[] =>
  [...new Set(validateDesign(d).map((v) => v.rule))].sort((a, b) => a - b);

/** A valid diamond: A → B, A → C, B → D, C → D. */
const diamond = (): RawDesign =>
  high(
    [agent('A'), agent('B', 'use ${A}'), agent('C', 'check ${A}'), agent('D', 'combine ${B} and ${C}')],
    [
      ['A', 'B'],
      ['A', 'C'],
      ['B', 'D'],
      ['C', 'D'],
    ],
  );

describe('validateDesign', () => {
  it('accepts a valid diamond and a valid single agent', () => {
    expect(validateDesign(diamond())).toEqual([]);
    expect(validateDesign({ dom: 'low', agents: [agent('solo')], edges: [] })).toEqual([]);
  });

  it('rule 1: duplicate ids', () => {
    const d = diamond();
    d.agents.push(agent('A'));
    expect(rules(d)).toContain(1);
  });

  it('rule 2: unknown agent type, case-insensitive match for known ones', () => {
    const d = diamond();
    (d.agents[0] as RawAgent).type = 'cotagent';
    expect(rules(d)).toEqual([]);
    (d.agents[0] as RawAgent).type = 'MagicAgent';
    expect(validateDesign(d)[0]?.message).toContain('MagicAgent');
  });

  it('rules 3 and 6: a cycle with no start is named', () => {
    const d = high(
      [agent('X', '${Z}'), agent('Y', '${X}'), agent('Z', '${Y}')],
      [
        ['X', 'Y'],
        ['Y', 'Z'],
        ['Z', 'X'],
      ],
    );
    const v = validateDesign(d);
    expect(v.map((x) => x.rule)).toEqual(expect.arrayContaining([3, 4, 6]));
    const cycle = v.find((x) => x.rule === 6);
    expect(cycle?.message).toMatch(/X → Y → Z → X|Y → Z → X → Y|Z → X → Y → Z/);
  });

  it('rule 4: two sinks', () => {
    const d = high(
      [agent('A'), agent('B', '${A}'), agent('C', '${A}')],
      [
        ['A', 'B'],
        ['A', 'C'],
      ],
    );
    expect(rules(d)).toEqual([4]);
  });

  it('rule 5: an agent that is not on a start→sink path', () => {
    // E feeds nothing and nothing feeds it: it is both a start and a sink → two sinks (rule 4);
    // with a back edge it becomes a cycle off the main path.
    const d = high(
      [agent('A'), agent('B', '${A}'), agent('P', '${Q}'), agent('Q', '${P}')],
      [
        ['A', 'B'],
        ['P', 'Q'],
        ['Q', 'P'],
      ],
    );
    const v = validateDesign(d);
    expect(v.find((x) => x.rule === 5)?.agents?.sort()).toEqual(['P', 'Q']);
  });

  it('rules 7 and 8: self-loop and duplicate edge', () => {
    const d = diamond();
    d.edges.push({ from: 'A', to: 'B' }, { from: 'C', to: 'C' });
    expect(rules(d)).toEqual(expect.arrayContaining([7, 8]));
  });

  it('rule 9: reference without edge, and edge without reference', () => {
    const d = diamond();
    (d.agents[3] as RawAgent).input = 'combine ${B} and ${A}';
    const v = validateDesign(d).filter((x) => x.rule === 9);
    expect(v.map((x) => x.message).join('\n')).toMatch(/no edge A → D/);
    expect(v.map((x) => x.message).join('\n')).toMatch(/C → D exists/);
  });

  it('rule 10: unknown ids in edges and references', () => {
    const d = diamond();
    d.edges.push({ from: 'ghost', to: 'D' });
    (d.agents[1] as RawAgent).input = '${A} ${nobody}';
    const v = validateDesign(d).filter((x) => x.rule === 10);
    expect(v).toHaveLength(2);
  });

  it('rule 11: debate with fewer than two roles', () => {
    const d: RawDesign = {
      dom: 'low',
      agents: [agent('D', '', 'DebateAgent', { debateRoles: ['Only'] })],
      edges: [],
    };
    expect(rules(d)).toEqual([11]);
    (d.agents[0] as RawAgent).debateRoles = ['Pro', 'Con'];
    expect(rules(d)).toEqual([]);
  });

  it('rule 11: repeated roles count once, compared trimmed and ignoring case', () => {
    const debate = (debateRoles: string[]): RawDesign => ({
      dom: 'low',
      agents: [agent('D', '', 'DebateAgent', { debateRoles })],
      edges: [],
    });
    const twice = validateDesign(debate(['Critic', 'Critic']));
    expect(twice.map((x) => x.rule)).toEqual([11]);
    expect(twice[0]?.message).toBe(
      'Debate agent "D" has 2 debate roles, but both name the same role ("Critic" twice; names are compared ignoring case and surrounding spaces); it needs at least 2 different roles.',
    );
    expect(validateDesign(debate(['Judge', ' judge ', 'JUDGE']))[0]?.message).toContain(
      'they all name the same role ("Judge", "judge", "JUDGE";',
    );
    expect(rules(debate(['Judge', 'judge', '']))).toEqual([11]);
    expect(rules(debate(['Judge', 'judge', 'Critic']))).toEqual([]);
    expect(rules(debate(['Δικαστής', 'δικαστής']))).toEqual([11]);
  });

  it('rule 12: low DoM with two agents and an edge', () => {
    const d = diamond();
    d.dom = 'low';
    expect(rules(d)).toContain(12);
  });

  it('rule 13 and 14', () => {
    expect(rules(high([agent('bad id!')], []))).toContain(13);
    expect(rules(high([], []))).toEqual([14]);
  });
  it('rule 13 alone for a non-ASCII id: its ${…} references are still read as references', () => {
    const d = high(
      [agent('ñandú'), agent('Ω', 'ask ${ñandú}'), agent('end', 'sum ${Ω} and ${ñandú}')],
      [
        ['ñandú', 'Ω'],
        ['Ω', 'end'],
        ['ñandú', 'end'],
      ],
    );
    const v = validateDesign(d);
    expect(v.map((x) => x.rule)).toEqual([13]);
    expect(v[0]?.agents).toEqual(['ñandú', 'Ω']);
    expect(v[0]?.message).toContain('(say, "nandu")');
  });

  it('LaTeX after a dollar sign is not a reference', () => {
    const d = high([agent('a'), agent('b', 'for ${\\alpha} and ${x^2}$ use ${a}')], [['a', 'b']]);
    expect(validateDesign(d)).toEqual([]);
  });
});

describe('parseDesign never throws', () => {
  it('on arbitrary strings and values', () => {
    const inputs: unknown[] = [
      '',
      '<agent>',
      '<agent><agent_id>a</agent_id></agent>',
      '{',
      '{"agents": 3}',
      '<edge><from>a</from></edge>',
      '<agent><oops',
      '\u0000\uffff<agent><agent_id>x</agent_id><agent_name>CoTAgent</agent_name></agent>',
      'x'.repeat(5_000_000),
      null,
      42,
    ];
    for (const input of inputs) {
      const r = parseDesign(input);
      expect(r.design === null || r.violations.length === 0).toBe(true);
      expect(r.problems.length + r.violations.length + (r.design ? 1 : 0)).toBeGreaterThan(0);
    }
  });
});
