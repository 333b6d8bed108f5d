import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseMasCode } from './mas-code.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../tests/fixtures/importers/${name}`, import.meta.url), 'utf8');

/** The single-agent form of MAS-Orchestra's medium-level generator (json.dumps, indent=4). */
const SINGLE = `async def forward(self, original_task_info):
    """Generated harmony agent forward function - single agent (async)"""
    agent_name = """SCAgent"""
    agent_description = """Vote over five samples of the \\boxed{} answer."""
    agent_id = """Vote_Solver"""

    agent_calls = [
    {
        "name": "SCAgent",
        "required_arguments": {
            "agent_input": "Count the apples in \\"each\\" basket"
        }
    }
]

    # Execute single agent
    agent_name_lower = agent_name.lower()
    args = agent_calls[0]['required_arguments']
    if agent_name_lower == 'scagent':
        result = await self.SCAgent(agent_input=task_info, model='gpt-oss-20b')
        return result`;

describe('mas_code → design', () => {
  it('recovers a multi-agent graph (agents_config, edges, execution_order, sink_agents)', () => {
    const d = parseMasCode(fixture('multi-agent-mas-code.txt'));
    expect(d.problems).toEqual([]);
    expect(d.form).toBe('multi');
    expect(d.model).toBe('gpt-oss-120b');
    expect(d.agents.map((a) => [a.id, a.type])).toEqual([
      ['Extract_Facts', 'CoTAgent'],
      ['Solve_Bakery', 'SCAgent'],
      ['Solve_Cafe', 'ReflexionAgent'],
      ['Final_Answer', 'DebateAgent'],
    ]);
    expect(d.agents[1]?.description).toBe('Compute the bakery\u2019s total from the equations.');
    expect(d.agents[0]?.input).toBe('');
    expect(d.agents[3]?.input).toBe(
      'Bakery total: ${Solve_Bakery}\nCafe total: ${Solve_Cafe}\nAdd them and state the "final" answer.',
    );
    expect(d.agents[3]?.debateRoles).toEqual(['Careful Accountant', 'Skeptical Reviewer']);
    expect(d.edges).toEqual([
      { from: 'Extract_Facts', to: 'Solve_Bakery' },
      { from: 'Extract_Facts', to: 'Solve_Cafe' },
      { from: 'Solve_Bakery', to: 'Final_Answer' },
      { from: 'Solve_Cafe', to: 'Final_Answer' },
    ]);
    expect(d.executionOrder).toEqual(['Extract_Facts', 'Solve_Bakery', 'Solve_Cafe', 'Final_Answer']);
    expect(d.sinks).toEqual(['Final_Answer']);
  });

  it('recovers the single-agent form and keeps triple-quoted text verbatim', () => {
    const d = parseMasCode(SINGLE);
    expect(d.form).toBe('single');
    expect(d.agents).toEqual([
      {
        id: 'Vote_Solver',
        type: 'SCAgent',
        description: 'Vote over five samples of the \\boxed{} answer.',
        input: 'Count the apples in "each" basket',
      },
    ]);
    expect(d.sinks).toEqual(['Vote_Solver']);
    expect(d.model).toBe('gpt-oss-20b');
  });

  it('reads the older generator: agent_output_id and agent_calls written by repr()', () => {
    const d = parseMasCode(fixture('minimal-repr-mas-code.txt'));
    expect(d.problems).toEqual([]);
    expect(d.agents).toEqual([
      {
        id: 'angle_debate',
        type: 'DebateAgent',
        description:
          'Weigh the two readings of the angle condition, e.g. \\frac{\\pi}{3} versus \\frac{2\\pi}{3}.',
        input: "Decide whether the triangle's obtuse angle is at B",
        debateRoles: ['Synthetic Geometer', 'Coordinate Bash Specialist'],
      },
    ]);
  });

  it('treats empty code and the direct_answer marker as a direct answer', () => {
    expect(parseMasCode('').form).toBe('direct');
    expect(parseMasCode('  direct_answer \n').form).toBe('direct');
  });

  it('says what is wrong with code it cannot read', () => {
    const noDesign = parseMasCode('def forward(self, x):\n    return 42');
    expect(noDesign.form).toBe('unreadable');
    expect(noDesign.problems[0]).toContain('neither agents_config nor agent_calls');
    const broken = parseMasCode('    agents_config = [\n    {"agent_id": "a",\n');
    expect(broken.form).toBe('unreadable');
    expect(broken.problems.join(' ')).toMatch(/^agents_config: .*never closed \(line 2, column 5\)\.$/);
  });

  it('keeps debate roles MAS-Orchestra stored as a raw string', () => {
    const d = parseMasCode(
      `agent_name = """DebateAgent"""\nagent_calls = [{'name': 'DebateAgent', 'required_arguments': {'agent_input': '', 'debate_roles': 'Optimist, Pessimist'}}]`,
    );
    expect(d.agents[0]?.debateRoles).toEqual(['Optimist', 'Pessimist']);
    expect(d.agents[0]?.id).toBe('agent_1');
  });
});
