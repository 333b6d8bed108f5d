import { describe, expect, it } from 'vitest';
import { MAX_DESIGN_CHARS, parseDesignXml, parseRoleList, serializeDesignXml } from './xml.ts';
import { parseDesign } from './parse.ts';
import { parseDesignJson, serializeDesignJson } from './json.ts';

const SAMPLE = `<thinking>
Split the work: two solvers in parallel, then a debate decides.
</thinking>
<agent>
    <agent_id>solve_a</agent_id>
    <agent_name>CoTAgent</agent_name>
    <agent_description>Solve directly.</agent_description>
    <required_arguments>
        <agent_input>""</agent_input>
    </required_arguments>
</agent>
<agent>
    <agent_id>solve_b</agent_id>
    <agent_name>SCAgent</agent_name>
    <agent_description>Solve with self-consistency; compare 1 &lt; 2.</agent_description>
    <required_arguments>
        <agent_input></agent_input>
        <samples>7</samples>
    </required_arguments>
</agent>
<agent>
    <agent_id>judge</agent_id>
    <agent_name>DebateAgent</agent_name>
    <agent_description>Decide between the two.</agent_description>
    <required_arguments>
        <agent_input>Candidates: \${solve_a} and \${solve_b}</agent_input>
        <debate_roles>['Algebraist', "Geometer"]</debate_roles>
    </required_arguments>
</agent>
<edge>
    <from>solve_a</from><to>judge</to>
    <from>solve_b</from><to>judge</to>
</edge>`;

describe('MAS-Orchestra XML', () => {
  it('reads every channel', () => {
    const { design, problems } = parseDesignXml(SAMPLE);
    expect(problems).toEqual([]);
    if (!design) throw new Error('expected a design');
    expect(design.dom).toBe('high');
    expect(design.thinking).toContain('two solvers');
    expect(design.agents.map((a) => a.id)).toEqual(['solve_a', 'solve_b', 'judge']);
    expect(design.agents[0]?.input).toBe('');
    expect(design.agents[1]?.description).toContain('1 < 2');
    expect(design.agents[1]?.params).toEqual({ samples: 7 });
    expect(design.agents[2]?.debateRoles).toEqual(['Algebraist', 'Geometer']);
    expect(design.edges).toEqual([
      { from: 'solve_a', to: 'judge' },
      { from: 'solve_b', to: 'judge' },
    ]);
    const report = parseDesign(SAMPLE);
    expect(report.violations).toEqual([]);
    expect(report.design?.agents[1]?.type).toBe('SCAgent');
  });

  it('round-trips through serialisation (XML and JSON)', () => {
    const { design } = parseDesignXml(SAMPLE);
    if (!design) throw new Error('expected a design');
    const again = parseDesignXml(serializeDesignXml(design));
    expect(again.problems).toEqual([]);
    expect(again.design).toEqual(design);
    const viaJson = parseDesignJson(serializeDesignJson(design));
    expect(viaJson.design).toEqual(design);
  });

  it('reports unreadable blocks', () => {
    const { problems } = parseDesignXml(
      '<agent><agent_name>CoTAgent</agent_name></agent><edge><from>a</from><from>b</from><to>c</to></edge>',
    );
    expect(problems.join('\n')).toMatch(/no <agent_id>/);
    expect(problems.join('\n')).toMatch(/2 <from> and 1 <to>/);
  });

  it('low DoM is inferred for one agent with no edges', () => {
    const one = parseDesignXml(
      '<agent><agent_id>x</agent_id><agent_name>ReflexionAgent</agent_name><required_arguments><agent_input></agent_input></required_arguments></agent><edge></edge>',
    );
    expect(one.design?.dom).toBe('low');
  });

  it('reads role lists in several spellings', () => {
    expect(parseRoleList('["A", "B"]')).toEqual(['A', 'B']);
    expect(parseRoleList("['A', 'B']")).toEqual(['A', 'B']);
    expect(parseRoleList('<role>A</role><role>B</role>')).toEqual(['A', 'B']);
    expect(parseRoleList('A, B')).toEqual(['A', 'B']);
    expect(parseRoleList('[1, 2')).toBeNull();
  });

  it('reads CDATA sections as text: no tags, no entities, nothing cut short', () => {
    const xml = SAMPLE.replace(
      '<agent_input>Candidates: ${solve_a} and ${solve_b}</agent_input>',
      '<agent_input><![CDATA[Candidates: ${solve_a} and ${solve_b}. Keep x<y & <b>bold</b>; ignore </agent_input> &amp; <agent>.]]></agent_input>',
    )
      .replace(
        '<agent_description>Solve directly.</agent_description>',
        '<agent_description><![CDATA[Solve directly, if 2 > 1.]]></agent_description>',
      )
      .replace(
        `<debate_roles>['Algebraist', "Geometer"]</debate_roles>`,
        '<debate_roles><![CDATA[["Algebraist", "Geometer"]]]></debate_roles>',
      )
      .replace('<samples>7</samples>', '<samples><![CDATA[ 7 ]]></samples>');
    const report = parseDesign(xml);
    expect(report.problems).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.raw?.agents.map((a) => a.id)).toEqual(['solve_a', 'solve_b', 'judge']);
    expect(report.raw?.agents[2]?.input).toBe(
      'Candidates: ${solve_a} and ${solve_b}. Keep x<y & <b>bold</b>; ignore </agent_input> &amp; <agent>.',
    );
    expect(report.raw?.agents[0]?.description).toBe('Solve directly, if 2 > 1.');
    expect(report.raw?.agents[1]?.params).toEqual({ samples: 7 });
    expect(report.raw?.agents[2]?.debateRoles).toEqual(['Algebraist', 'Geometer']);
    // Text around a section is still entity-decoded; the section itself is not.
    const mixed = parseDesignXml(
      '<agent><agent_id>a</agent_id><agent_name>CoTAgent</agent_name><required_arguments><agent_input>1 &lt; 2 <![CDATA[&lt;]]></agent_input></required_arguments></agent>',
    );
    expect(mixed.design?.agents[0]?.input).toBe('1 < 2 &lt;');
  });

  it('says when a CDATA section is never closed, and a forged placeholder stays text', () => {
    const open = parseDesignXml(
      '<agent><agent_id>a</agent_id><agent_name>CoTAgent</agent_name><agent_description><![CDATA[x</agent_description></agent>',
    );
    expect(open.problems.join('\n')).toContain('never closed');
    const forged = parseDesignXml(
      '<agent><agent_id>a\uE0000\uE000</agent_id><agent_name>CoTAgent</agent_name><agent_description><![CDATA[y]]></agent_description></agent>',
    );
    expect(forged.design?.agents[0]).toMatchObject({ id: 'a\uE0000\uE000', description: 'y' });
  });

  it('stops at the size limit instead of checking a cut-off design', () => {
    const agentXml = (i: number): string =>
      `<agent><agent_id>a${i}</agent_id><agent_name>CoTAgent</agent_name><required_arguments><agent_input>\${a${i - 1}}</agent_input></required_arguments></agent>`;
    const big = Array.from({ length: 12_000 }, (_, i) => agentXml(i)).join('\n');
    expect(big.length).toBeGreaterThan(MAX_DESIGN_CHARS);
    const xml = parseDesignXml(big);
    expect(xml.design).toBeNull();
    expect(xml.problems).toHaveLength(1);
    expect(xml.problems[0]).toMatch(/characters long; the limit is 1,000,000/);
    const report = parseDesign(big);
    expect(report.problems).toEqual(xml.problems);
    expect(report.violations).toEqual([]);
    expect(report.raw).toBeNull();
  });
});
