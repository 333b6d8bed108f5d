import { describe, expect, it } from 'vitest';
import { partialDesign, splitThinking } from './orchestrate-partial.ts';

const FULL = `<thinking>
Two solvers, then a summary.
</thinking>
<agent>
    <agent_id>solve_a</agent_id>
    <agent_name>CoTAgent</agent_name>
    <agent_description>First part.</agent_description>
    <required_arguments>
        <agent_input></agent_input>
    </required_arguments>
</agent>
<agent>
    <agent_id>solve_b</agent_id>
    <agent_name>SCAgent</agent_name>
    <agent_description>Second part.</agent_description>
    <required_arguments>
        <agent_input>\${solve_a}</agent_input>
    </required_arguments>
</agent>
<agent>
    <agent_id>final</agent_id>
    <agent_name>SummarizerAgent</agent_name>
    <agent_description>Combine.</agent_description>
    <required_arguments>
        <agent_input>\${solve_a} \${solve_b}</agent_input>
    </required_arguments>
</agent>
<edge>
    <from>solve_a</from> <to>solve_b</to>
    <from>solve_a</from> <to>final</to>
    <from>solve_b</from> <to>final</to>
</edge>
`;

describe('splitThinking', () => {
  it('reads an open thinking block to the end of the text', () => {
    expect(splitThinking('<thinking>Two solv')).toEqual({ thinking: 'Two solv', designText: '' });
  });
  it('gives the text after </thinking> as the design text', () => {
    const s = splitThinking('<thinking>plan</thinking>\n<agent>');
    expect(s).toEqual({ thinking: 'plan', designText: '<agent>' });
  });
  it('treats text without a thinking block as design text', () => {
    expect(splitThinking('<agent>x')).toEqual({ thinking: '', designText: '<agent>x' });
  });
});

describe('partialDesign', () => {
  it('grows agent by agent and edge by edge as the text streams in', () => {
    const counts: string[] = [];
    for (let n = 0; n <= FULL.length; n += 7) {
      const p = partialDesign(FULL.slice(0, n));
      const c = `${p.design.agents.length}/${p.design.edges.length}`;
      if (counts[counts.length - 1] !== c) counts.push(c);
    }
    const last = partialDesign(FULL);
    const end = `${last.design.agents.length}/${last.design.edges.length}`;
    if (counts[counts.length - 1] !== end) counts.push(end);
    // Never shrinks, and each agent and each edge appears on its own.
    expect(counts).toEqual(['0/0', '1/0', '2/0', '3/0', '3/1', '3/2', '3/3']);
    expect(last.design.agents.map((a) => `${a.id}:${a.type}`)).toEqual([
      'solve_a:CoTAgent',
      'solve_b:SCAgent',
      'final:SummarizerAgent',
    ]);
    expect(last.thinking).toBe('Two solvers, then a summary.');
  });

  it('shows an edge as soon as its pair is complete, before </edge>', () => {
    const cut = FULL.indexOf('<from>solve_b</from>');
    const p = partialDesign(FULL.slice(0, cut));
    expect(p.design.edges).toEqual([
      { from: 'solve_a', to: 'solve_b' },
      { from: 'solve_a', to: 'final' },
    ]);
  });

  it('leaves out edges to undeclared agents, self-loops and repeats', () => {
    const text = `<agent><agent_id>a</agent_id><agent_name>CoTAgent</agent_name></agent>
<agent><agent_id>b</agent_id><agent_name>CoTAgent</agent_name></agent>
<edge><from>a</from><to>b</to><from>a</from><to>b</to><from>a</from><to>ghost</to><from>b</from><to>b</to>`;
    expect(partialDesign(text).design.edges).toEqual([{ from: 'a', to: 'b' }]);
  });

  it('keeps the first of two agents with the same id', () => {
    const text = `<agent><agent_id>a</agent_id><agent_name>CoTAgent</agent_name></agent>
<agent><agent_id>a</agent_id><agent_name>SCAgent</agent_name></agent>`;
    expect(partialDesign(text).design.agents.map((a) => a.type)).toEqual(['CoTAgent']);
  });

  it('draws nothing from garbage and does not throw', () => {
    for (const junk of ['', '<<<>>>', '</edge><edge>', '<agent><agent_id>', 'x'.repeat(5000)]) {
      const p = partialDesign(junk);
      expect(p.design.agents).toEqual([]);
      expect(p.design.edges).toEqual([]);
    }
  });
});
