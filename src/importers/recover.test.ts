import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Trace } from '../core/trace.ts';
import { validateDesign } from '../design/validate.ts';
import { defaultCorpus, runFuzz } from '../../tests/support/fuzz.ts';
import { recoverTarget, withThinkingSamples } from '../../tests/support/recover-fuzz.ts';
import { importText, type ImportOutcome } from './index.ts';
import { MAX_RECOVERY_CHARS, recoverDesign } from './recover.ts';

const DATA_DIR = fileURLToPath(new URL('../../../shared/data/mas-orchestra-cases/', import.meta.url));
const hasData = existsSync(DATA_DIR);
const FIXTURE = 'qwen2.5_7b_oss_20b_high_depth3.diagram-only.json';
const fixture = (name: string): string =>
  readFileSync(new URL(`../../tests/fixtures/importers/${name}`, import.meta.url), 'utf8');

function traces(outcome: ImportOutcome): Trace[] {
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.items.map((i) => {
    if (!i.result.ok) throw new Error(`${i.label}: ${i.result.errors.map((e) => e.message).join('; ')}`);
    return i.result.value;
  });
}

const edgesOf = (t: Trace): string[] => t.design.edges.map((e) => `${e.from}>${e.to}`);

const block = (id: string, type: string, input: string, extra = ''): string =>
  `<agent_id>${id}</agent_id>\n<agent_name>${type}</agent_name>\n<agent_description>${id} does its part.</agent_description>\n<required_arguments>\n<agent_input>${input}</agent_input>${extra}\n</required_arguments>\n`;

describe('design recovery from the orchestrator text (repository sample slides)', () => {
  const all = traces(importText(fixture(FIXTURE), FIXTURE));

  it('recovers the last draft of three agents with its drafted edge block', () => {
    const t = all[0] as Trace;
    expect(t.design.agents.map((a) => `${a.id}:${a.type}`)).toEqual([
      'Read_Facts:CoTAgent',
      'Solve_Cafe:SCAgent',
      'Check_Answer:ReflexionAgent',
    ]);
    expect(edgesOf(t)).toEqual(['Read_Facts>Solve_Cafe', 'Solve_Cafe>Check_Answer']);
    expect(t.design.dom).toBe('high');
    expect(t.result.answerAgent).toBe('Check_Answer');
    expect(t.tags).toEqual(expect.arrayContaining(['design-in-diagram-only', 'design-recovered']));
    expect(t.designer).toMatchObject({
      kind: 'imported',
      designRecovery: {
        from: 'orchestrator-thinking',
        method: 'agent-blocks',
        draft: 2,
        drafts: 2,
        agents: 3,
        edges: 2,
        edgesFrom: 'edge-block',
        repairs: [],
        executed: false,
      },
    });
    expect(validateDesign({ ...t.design, agents: t.design.agents })).toEqual([]);
  });

  it('reads <agent>-wrapped blocks, debate roles, and edges from ${refs} when no edge block is drafted', () => {
    const t = all[1] as Trace;
    expect(t.design.agents.map((a) => a.id)).toEqual(['Solve_Direct', 'Solve_Stepwise', 'Judge']);
    expect(t.design.agents[2]?.params.debateRoles).toEqual(['Proponent', 'Skeptic']);
    expect(edgesOf(t)).toEqual(['Solve_Direct>Judge', 'Solve_Stepwise>Judge']);
    expect(t.designer.kind === 'imported' && t.designer.designRecovery?.edgesFrom).toBe('references');
  });

  it('falls back to the last complete draft when the last one is cut off, and says so', () => {
    const t = all[2] as Trace;
    expect(t.design.agents.map((a) => a.id)).toEqual(['Parse', 'Final']);
    expect(edgesOf(t)).toEqual(['Parse>Final']);
    const recovery = t.designer.kind === 'imported' ? t.designer.designRecovery : undefined;
    expect(recovery).toMatchObject({ draft: 1, drafts: 2 });
    expect(recovery?.repairs[0]).toContain('draft 2 of 2 is incomplete');
    expect(t.importNotes?.some((n) => n.message.includes('draft 2 of 2 is incomplete'))).toBe(true);
  });

  it('leaves the design empty, not a direct answer, when the text drafts no blocks', () => {
    const t = all[3] as Trace;
    expect(t.design.agents).toEqual([]);
    expect(t.design.directAnswer).toBeUndefined();
    expect(t.designer.kind === 'imported' && t.designer.designRecovery).toBeUndefined();
    expect(t.tags).toContain('design-in-diagram-only');
    expect(t.tags).not.toContain('design-recovered');
  });

  it('does not recover anything when the slide publishes its code', () => {
    const t = all[4] as Trace;
    expect(t.designer.kind === 'imported' && t.designer.designRecovery).toBeUndefined();
    expect(t.design.agents.map((a) => a.id)).toEqual(['angle_debate']);
    expect(t.designer.kind === 'imported' && t.designer.disagreements).toEqual([
      { field: 'subAgentModel', page: 'gpt-oss-20b', code: 'gpt-oss-120b' },
    ]);
  });

  it("doubts the page's model on slides without code when the file's code calls another", () => {
    for (const t of all.slice(0, 4)) {
      expect(t.designer.kind === 'imported' && t.designer.disagreements).toEqual([
        { field: 'subAgentModel', page: 'gpt-oss-20b', code: 'gpt-oss-120b', codeOf: 'other-items' },
      ]);
      expect(t.importNotes?.at(-1)?.message).toBe(
        "This slide publishes no code. The page name says the sub-agents ran on gpt-oss-20b, but the code of the one slide of this file that publishes code calls model 'gpt-oss-120b'.",
      );
    }
    // Without the slide whose code disagrees, nothing is in doubt.
    const slides = JSON.parse(fixture(FIXTURE)) as unknown[];
    const alone = traces(importText(JSON.stringify(slides.slice(0, 4)), FIXTURE));
    for (const t of alone) expect(t.designer.kind === 'imported' && t.designer.disagreements).toBeUndefined();
  });

  it('the bundled case page: its diagram-only slide drafts no blocks, so nothing is recovered', () => {
    const [, diagramOnly] = traces(importText(fixture('case-page.html'), 'case-page.html'));
    expect(diagramOnly?.design.agents).toEqual([]);
    expect(diagramOnly?.importNotes?.map((n) => n.message).join(' ')).toContain(
      'no design could be recovered',
    );
  });
});

describe.skipIf(!hasData)(
  'design recovery over the shared MAS-Orchestra samples (skipped when absent)',
  () => {
    it('recovers the diagram-only slides that draft agent blocks, and only those', () => {
      const name = 'qwen2.5_20b_oss_120b_low_depth2.sample.json';
      const slides = JSON.parse(readFileSync(`${DATA_DIR}/${name}`, 'utf8')) as {
        row: number;
        mas_code: string;
      }[];
      const all = traces(importText(readFileSync(`${DATA_DIR}/${name}`, 'utf8'), name));
      const diagramOnly = all.filter((t) => t.tags.includes('design-in-diagram-only'));
      expect(diagramOnly.map((t) => t.task.source.kind === 'masbench' && t.task.source.taskId)).toEqual([
        'row 1',
        'row 3',
        'row 4',
        'row 5',
        'row 7',
        'row 8',
      ]);
      const shape = diagramOnly.map((t) => [t.design.agents.length, t.design.edges.length]);
      expect(shape).toEqual([
        [3, 2],
        [2, 1],
        [0, 0],
        [0, 0],
        [0, 0],
        [0, 0],
      ]);
      expect(edgesOf(diagramOnly[0] as Trace)).toEqual([
        'Parse_Variables>Solve_Saphenous',
        'Solve_Saphenous>Final_Saphenous',
      ]);
      expect(edgesOf(diagramOnly[1] as Trace)).toEqual(['Parse_Equations>Final_Solution']);
      // Slides that publish code keep it; none of them is recovered.
      const withCode = new Set(slides.filter((s) => s.mas_code !== '').map((s) => `row ${s.row}`));
      for (const t of all) {
        const row = t.task.source.kind === 'masbench' ? (t.task.source.taskId ?? '') : '';
        if (withCode.has(row)) expect(t.tags).not.toContain('design-recovered');
      }
      // No slide of this page that publishes code calls the page's model; those without code say so.
      for (const t of diagramOnly) {
        expect(t.designer.kind === 'imported' && t.designer.disagreements).toEqual([
          { field: 'subAgentModel', page: 'gpt-oss-120b', code: 'gpt-oss-20b', codeOf: 'other-items' },
        ]);
        expect(t.importNotes?.some((n) => n.message.includes('the code of all 6 slides of this file'))).toBe(
          true,
        );
      }
      // The page name says low; the recovered three-agent design is shown as high, with a note.
      expect(diagramOnly[0]?.design.dom).toBe('high');
      expect(diagramOnly[0]?.importNotes?.some((n) => n.message.includes('Degree of MAS low'))).toBe(true);
    });
  },
);

describe('recoverDesign', () => {
  it('takes the last draft when an id repeats, and adds the edges the edge block omits', () => {
    const text = `${block('A', 'CoTAgent', '')}${block('B', 'CoTAgent', '${A}')}
<edge><from>A</from><to>B</to></edge>
Let me redo it with a checker.
${block('A', 'CoTAgent', '')}${block('B', 'SCAgent', 'Use ${A}')}${block('C', 'CoTAgent', '${B} and ${A}')}
<edge><from>A</from><to>B</to><from>B</from><to>C</to><from>B</from><to>C</to></edge>`;
    const r = recoverDesign(text);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.design.agents.map((a) => `${a.id}:${a.type}`)).toEqual([
      'A:CoTAgent',
      'B:SCAgent',
      'C:CoTAgent',
    ]);
    expect(r.design.edges).toEqual([
      { from: 'A', to: 'B' },
      { from: 'B', to: 'C' },
      { from: 'A', to: 'C' },
    ]);
    expect(r.recovery).toMatchObject({ draft: 2, drafts: 2, edgesFrom: 'edge-block+references' });
    expect(r.recovery.repairs).toEqual([
      '1 repeated pair(s) of the <edge> block were read once.',
      'Edge A → C added: "C" uses ${A} but the <edge> block omits it.',
    ]);
  });

  it('skips a prose mention of the tag before the real blocks', () => {
    const text = `We must write each <agent_id> and <agent_name> tag carefully, and keep ids unique across the whole graph so that references resolve.\n\n${block('Solo', 'CoTAgent', '')}`;
    const r = recoverDesign(text);
    expect(r.ok && r.design.agents.map((a) => a.id)).toEqual(['Solo']);
    expect(r.ok && r.design.dom).toBe('low');
    expect(r.ok && r.recovery.drafts).toBe(1);
    const cut = recoverDesign(`${block('A', 'CoTAgent', '')}<agent_id>B`);
    expect(!cut.ok && cut.reason).toBe('draft 1 of 1 is incomplete (an agent block lacks </agent_id>)');
  });

  it('reads an absent <agent_input> as empty and says so', () => {
    const text =
      '<agent_id>Only</agent_id><agent_name>CoTAgent</agent_name><agent_description>x</agent_description>';
    const r = recoverDesign(text);
    expect(r.ok && r.design.agents[0]?.input).toBe('');
    expect(r.ok && r.recovery.repairs).toEqual([
      '"Only" has no <agent_input>; it is read as empty (the question).',
    ]);
  });

  it('refuses a draft that breaks a rule, naming the rule, rather than showing a wrong design', () => {
    const cycle = `${block('A', 'CoTAgent', '${B}')}${block('B', 'CoTAgent', '${A}')}`;
    const r = recoverDesign(cycle);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/draft 1 of 1 is not a valid design \(rule \d+/);
    const unknownType = recoverDesign(block('A', 'MagicAgent', ''));
    expect(!unknownType.ok && unknownType.reason).toContain('rule 2');
  });

  it('says why nothing was recovered', () => {
    expect(recoverDesign('')).toEqual({
      ok: false,
      reason: 'the page has no orchestrator text to read a design from',
    });
    expect(recoverDesign(42)).toMatchObject({ ok: false });
    expect(recoverDesign('analysisjust prose')).toEqual({
      ok: false,
      reason: "the orchestrator's text drafts no <agent_id> blocks",
    });
    expect(recoverDesign('<agent_id>A</agent_id><agent_name>CoT')).toMatchObject({
      ok: false,
      reason: 'draft 1 of 1 is incomplete (an agent block lacks <agent_name>)',
    });
    const long = recoverDesign('x'.repeat(MAX_RECOVERY_CHARS + 1));
    expect(!long.ok && long.reason).toContain('over the 2,000,000');
  });

  it('fuzz: 10,000 seeded cases, no exception, every refusal explains itself', () => {
    const corpus = withThinkingSamples(defaultCorpus());
    const summary = runFuzz({ seed: 19, cases: 10_000, corpus, targets: [recoverTarget] });
    expect(summary.findings).toEqual([]);
    const c = summary.byTarget.recoverDesign!;
    expect(c.ok + c.refused).toBe(10_000);
    // The mutated drafts are still recovered often enough for the parser's paths to run.
    expect(c.ok).toBeGreaterThan(100);
  }, 60_000);
});
