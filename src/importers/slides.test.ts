import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TraceSchema, type Trace } from '../core/trace.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { importText, importValue, type ImportOutcome } from './index.ts';
import { ANALYSIS_HEADING } from './thinking.ts';

const DATA_DIR = fileURLToPath(new URL('../../../shared/data/mas-orchestra-cases/', import.meta.url));
const hasData = existsSync(DATA_DIR);
const fixture = (name: string): string =>
  readFileSync(new URL(`../../tests/fixtures/importers/${name}`, import.meta.url), 'utf8');

function traces(outcome: ImportOutcome): Trace[] {
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.items.map((i) => {
    if (!i.result.ok) throw new Error(`${i.label}: ${i.result.errors.map((e) => e.message).join('; ')}`);
    return i.result.value;
  });
}

function dataFile(name: string): { text: string; outcome: ImportOutcome } {
  const text = readFileSync(`${DATA_DIR}/${name}`, 'utf8');
  return { text, outcome: importText(text, name) };
}

describe.skipIf(!hasData)(
  'MAS-Orchestra case slides (shared data; skipped when ../shared/data is absent)',
  () => {
    const files = hasData ? readdirSync(DATA_DIR).filter((f) => f.endsWith('.json')) : [];

    it.each(files)('every slide of %s imports into a schema-valid trace', (name) => {
      const { text, outcome } = dataFile(name);
      expect(outcome.ok && outcome.kind).toBe('mas-orchestra-slides');
      const slides = JSON.parse(text) as unknown[];
      const all = traces(outcome);
      expect(all).toHaveLength(slides.length);
      for (const t of all) {
        expect(TraceSchema.parse(t)).toEqual(t);
        expect(t.execution).toMatchObject({
          backend: { kind: 'imported', tool: 'MAS-Orchestra' },
          status: 'completed',
          events: [],
        });
        expect(t.designer.kind).toBe('imported');
        // Case pages carry no dates: the date is marked unknown, not claimed to be 1970.
        expect(t.createdAtKnown).toBe(false);
      }
      expect(new Set(all.map((t) => t.id)).size).toBe(all.length);
    });

    it('aime24 row 0: a DebateAgent with the two roles, wrong answer, step 130', () => {
      const all = traces(dataFile('harmony_grpo_7b_120b_aime24.sample.json').outcome);
      const t = all[0] as Trace;
      expect(t.design.agents).toHaveLength(1);
      expect(t.design.agents[0]).toMatchObject({
        id: 'geometric_agent_output',
        type: 'DebateAgent',
        input: '',
        params: { debateRoles: ['Geometry Theorist', 'Trigonometry Specialist'] },
      });
      expect(t.design.dom).toBe('low');
      expect(t.design.thinking).toMatch(/^This problem involves geometric properties/);
      expect(t.designer).toEqual({
        kind: 'imported',
        tool: 'MAS-Orchestra',
        orchestrator: 'harmony_grpo_7b',
        subAgentModel: 'gpt-oss-120b',
        trainingStep: 130,
      });
      expect(t.task).toMatchObject({
        groundTruth: '113',
        source: { kind: 'dataset', name: 'aime24', item: 'row 0' },
      });
      expect(t.result).toEqual({ finalAnswer: '59', answerAgent: 'geometric_agent_output', correct: false });
      expect(t.tags).not.toContain('invalid-design');
    });

    it('ground truth "023" against output "23" counts as correct', () => {
      const outcome = dataFile('harmony_grpo_7b_120b_aime24.sample.json').outcome;
      const item = outcome.ok ? outcome.items.find((i) => i.label === 'row 70 · step 130') : undefined;
      expect(item?.result.ok).toBe(true);
      if (item?.result.ok) {
        expect(item.result.value.task.groundTruth).toBe('023');
        expect(item.result.value.result).toMatchObject({ finalAnswer: '23', correct: true });
      }
    });

    it('reads the page name: MASBench depth 2, low DoM, sub-agent model, labels', () => {
      const outcome = dataFile('qwen2.5_20b_oss_120b_low_depth2.sample.json').outcome;
      expect(outcome.ok && outcome.items.map((i) => i.label).slice(0, 2)).toEqual([
        'row 0 · step 60',
        'row 1 · step 60',
      ]);
      const [first] = traces(outcome);
      expect(first?.task.source).toEqual({ kind: 'masbench', axis: 'depth', value: 2, taskId: 'row 0' });
      expect(first?.designer).toMatchObject({
        orchestrator: 'qwen2.5_20b',
        subAgentModel: 'gpt-oss-120b',
        dom: 'low',
        trainingStep: 60,
      });
      expect(first?.design.agents[0]).toMatchObject({ id: 'Final_Solution', type: 'CoTAgent' });
      expect(first?.design.thinking).toContain(ANALYSIS_HEADING);
      expect(
        first?.design.thinking?.startsWith('The question is a straightforward algebraic extraction'),
      ).toBe(true);
    });

    it('a slide with a drawn diagram but no mas_code keeps the diagram and recovers the drafted agents', () => {
      const all = traces(dataFile('qwen2.5_20b_oss_120b_low_depth2.sample.json').outcome);
      const t = all[1] as Trace;
      expect(t.design.agents.map((a) => a.id)).toEqual([
        'Parse_Variables',
        'Solve_Saphenous',
        'Final_Saphenous',
      ]);
      expect(t.design.directAnswer).toBeUndefined();
      expect(t.tags).toContain('design-in-diagram-only');
      expect(t.tags).toContain('design-recovered');
      expect(t.diagram?.startsWith('data:image/png;base64,')).toBe(true);
      expect(t.result).toEqual({ finalAnswer: '7', answerAgent: 'Final_Saphenous', correct: true });
    });

    it('a diagram-only slide whose text drafts no agent blocks claims no agents and says why', () => {
      const all = traces(dataFile('qwen2.5_20b_oss_120b_low_depth2.sample.json').outcome);
      const t = all[4] as Trace;
      expect(t.design.agents).toEqual([]);
      expect(t.design.directAnswer).toBeUndefined();
      expect(t.tags).toContain('design-in-diagram-only');
      expect(t.tags).not.toContain('design-recovered');
      expect(t.importNotes?.map((n) => n.message).join(' ')).toContain('the design is not recorded');
    });

    it('imports the same slides to the same trace ids every time', () => {
      const a = traces(dataFile('qwen2.5_20b_oss_20b_low_depth6.sample.json').outcome).map((t) => t.id);
      const b = traces(dataFile('qwen2.5_20b_oss_20b_low_depth6.sample.json').outcome).map((t) => t.id);
      expect(a).toEqual(b);
    });
  },
);

const MULTI_SLIDE = {
  row: 4,
  step: '250',
  question: "The number of each Bakery's Muffin equals 12. How many Muffin do both shops have?",
  image: '',
  error: true,
  error_msg: 'Failed to draw MAS diagram',
  mas_code: fixture('multi-agent-mas-code.txt'),
  execution_output: '27',
  ground_truth: '27',
  thinking: '<thinking>Extract, solve both shops, combine.</thinking>',
};

describe('multi-agent slides', () => {
  it('recovers agents, edges and the sink of a high-DoM design', () => {
    const [t] = traces(importValue([MULTI_SLIDE], 'qwen2.5_7b_oss_120b_high_breadth2.html'));
    expect(t?.design.dom).toBe('high');
    expect(t?.design.agents.map((a) => a.id)).toEqual([
      'Extract_Facts',
      'Solve_Bakery',
      'Solve_Cafe',
      'Final_Answer',
    ]);
    expect(t?.design.edges).toHaveLength(4);
    expect(t?.result).toEqual({ finalAnswer: '27', answerAgent: 'Final_Answer', correct: true });
    expect(t?.tags).not.toContain('invalid-design');
    expect(validateDesign(fromDesign(t?.design as Trace['design']))).toEqual([]);
    expect(t?.design.thinking).toBe('Extract, solve both shops, combine.');
  });

  it('keeps a design that breaks a rule, tagged with the rules it breaks', () => {
    const outcome = importValue([MULTI_SLIDE], 'qwen2.5_20b_oss_120b_low_depth2.sample.json');
    const item = outcome.ok ? outcome.items[0] : undefined;
    expect(item?.result.ok).toBe(true);
    if (!item?.result.ok) return;
    const t = item.result.value;
    expect(t.design.dom).toBe('low');
    expect(t.design.agents).toHaveLength(4);
    expect(t.tags).toEqual(expect.arrayContaining(['invalid-design', 'design-rule-12']));
    expect(
      item.result.warnings.some((w) => w.code === 'E_DESIGN_INVALID' && w.message.startsWith('rule 12:')),
    ).toBe(true);
  });

  it('maps unknown agent types and odd ids onto what a trace can hold, and says so', () => {
    const code = fixture('multi-agent-mas-code.txt')
      .replace('"agent_name": "ReflexionAgent"', '"agent_name": "PlannerAgent"')
      .replaceAll('Solve_Bakery', 'Solve Bakery');
    const outcome = importValue(
      [{ ...MULTI_SLIDE, mas_code: code }],
      'qwen2.5_7b_oss_120b_high_breadth2.html',
    );
    const item = outcome.ok ? outcome.items[0] : undefined;
    if (!item?.result.ok) throw new Error('expected the slide to import');
    const t = item.result.value;
    expect(t.design.agents.find((a) => a.id === 'Solve_Cafe')).toMatchObject({
      type: 'CoTAgent',
      params: { importedType: 'PlannerAgent' },
    });
    expect(t.design.agents.map((a) => a.id)).toContain('Solve_Bakery');
    expect(t.design.edges).toContainEqual({ from: 'Extract_Facts', to: 'Solve_Bakery' });
    expect(t.tags).toEqual(expect.arrayContaining(['invalid-design', 'design-rule-2', 'design-rule-13']));
    expect(item.result.warnings.map((w) => w.message).join('\n')).toContain('"Solve Bakery"');
  });

  it('a slide without code or diagram is a direct answer', () => {
    const [t] = traces(
      importValue([
        {
          row: 2,
          step: '7',
          question: 'What is 5 + 7?',
          mas_code: '',
          image: '',
          error: true,
          execution_output: '12',
          ground_truth: '012',
        },
      ]),
    );
    expect(t?.design).toMatchObject({ agents: [], edges: [], directAnswer: '12' });
    expect(t?.tags).toContain('direct-answer');
    expect(t?.result).toEqual({ finalAnswer: '12', correct: true });
    expect(t?.task.source).toEqual({ kind: 'imported', tool: 'MAS-Orchestra', ref: 'row 2' });
  });

  it('drops a diagram that is not a PNG data URL, and a step that is not a number', () => {
    const outcome = importValue([{ ...MULTI_SLIDE, image: 'javascript:alert(1)', step: 'final' }]);
    const item = outcome.ok ? outcome.items[0] : undefined;
    if (!item?.result.ok) throw new Error('expected the slide to import');
    expect(item.result.value.diagram).toBeUndefined();
    expect(item.result.value.designer).not.toHaveProperty('trainingStep');
    expect(item.label).toBe('row 4 · step final');
    expect(item.result.warnings.length).toBeGreaterThanOrEqual(2);
  });
});

describe('MAS-Orchestra case page (HTML)', () => {
  it('reads `const slides = [...]` out of the page without running it', () => {
    const outcome = importText(fixture('case-page.html'), 'downloaded.html');
    expect(outcome.ok && outcome.kind).toBe('mas-orchestra-slides');
    const [multi, diagramOnly, direct] = traces(outcome);
    // The page title names the case even though the file was renamed.
    expect(multi?.designer).toMatchObject({ orchestrator: 'qwen2.5_7b', dom: 'high', trainingStep: 250 });
    expect(multi?.task.source).toMatchObject({ kind: 'masbench', axis: 'breadth', value: 2 });
    expect(multi?.design.agents).toHaveLength(4);
    expect(multi?.result.answerAgent).toBe('Final_Answer');
    expect(diagramOnly?.diagram).toMatch(/^data:image\/png;base64,/);
    expect(diagramOnly?.tags).toContain('design-in-diagram-only');
    expect(direct?.design.directAnswer).toBe('12');
  });

  it('explains a page without slides or with a cut-off array, in one sentence each', () => {
    const none = importText('<!DOCTYPE html><html><body>hello</body></html>', 'notes.html');
    expect(none.ok || none.error).toEqual({
      code: 'E_IMPORT_UNKNOWN',
      message:
        'Baton does not recognise this file: this HTML page is not a MAS-Orchestra case page: it has no `const slides = [...]` array.',
    });
    const cut = importText(fixture('case-page.html').slice(0, 1500));
    expect(cut.ok || cut.error.message).toBe(
      'Baton does not recognise this file: the `const slides = [...]` array of this MAS-Orchestra case page is never closed (is the file cut short?).',
    );
    for (const outcome of [none, cut]) {
      const message = outcome.ok ? '' : outcome.error.message;
      expect(message.match(/found/g)).toBeNull();
      expect(message.match(/HTML page|case page/g)?.length ?? 0).toBeLessThanOrEqual(2);
    }
  });

  it('accepts a hand-edited page with a Python-style literal', () => {
    const page = `<html><script>const slides = [{'row': 0, 'step': '5', 'question': 'Q?', 'mas_code': '', 'execution_output': 'A', 'ground_truth': 'a', 'error': True}];</script></html>`;
    const [t] = traces(importText(page));
    expect(t?.result).toEqual({ finalAnswer: 'A', correct: true });
  });
});
