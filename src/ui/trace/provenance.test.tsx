import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { DesignRecovery, Trace } from '../../core/trace.ts';
import { groupImportNotes } from '../app/import-notes.ts';
import { HeaderDesignMeta, HeaderDesignNote } from './DesignProvenance.tsx';
import { DiagramViewer } from './DiagramViewer.tsx';
import { designProvenance, disagreementText, recoverySentence, safeDiagram } from './provenance.ts';
import { TaskPanel } from './TaskPanel.tsx';

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

const recovery: DesignRecovery = {
  from: 'orchestrator-thinking',
  method: 'agent-blocks',
  draft: 2,
  drafts: 2,
  agents: 2,
  edges: 1,
  edgesFrom: 'references',
  repairs: [],
  executed: false,
};

/** A MAS-Orchestra slide whose page drew its design but published no code for it. */
function diagramOnly(): Trace {
  const t = minimalTrace({
    query: 'How many?',
    groundTruth: '7',
    source: { kind: 'masbench', axis: 'depth', value: 2, taskId: 'row 4' },
    designer: { kind: 'imported', tool: 'MAS-Orchestra', trainingStep: 60 },
  });
  return {
    ...t,
    design: { dom: 'low', agents: [], edges: [] },
    execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    result: { finalAnswer: '7', correct: true },
    diagram: PNG,
    tags: ['mas-orchestra', 'design-in-diagram-only'],
    importNotes: [
      { code: 'E_IMPORT_ITEM', message: 'no design could be recovered; the design is not recorded.' },
    ],
  };
}

function recovered(): Trace {
  const t = diagramOnly();
  return {
    ...t,
    designer: {
      kind: 'imported',
      tool: 'MAS-Orchestra',
      subAgentModel: 'gpt-oss-120b',
      designRecovery: recovery,
      disagreements: [{ field: 'subAgentModel', page: 'gpt-oss-120b', code: 'gpt-oss-20b' }],
    },
    design: {
      dom: 'high',
      agents: [
        { id: 'Parse', type: 'CoTAgent', description: 'Parse.', input: '', params: {} },
        { id: 'Final', type: 'CoTAgent', description: 'Answer.', input: 'Use ${Parse}', params: {} },
      ],
      edges: [{ from: 'Parse', to: 'Final' }],
    },
    tags: [...t.tags, 'design-recovered'],
    importNotes: [
      { code: 'E_IMPORT_ITEM', message: 'The design shown was recovered from the drafted agent blocks.' },
      {
        code: 'E_IMPORT_ITEM',
        message:
          "The page name says the sub-agents ran on gpt-oss-120b, but the code calls model 'gpt-oss-20b'.",
      },
    ],
  };
}

const text = (html: string): string =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, ' ');

describe('the header on a diagram-only slide', () => {
  it('says the design is not recorded, never "0 agents"', () => {
    const out = text(renderToStaticMarkup(<HeaderDesignMeta trace={diagramOnly()} />));
    expect(out).toContain('design not recorded (diagram only)');
    expect(out).not.toMatch(/0 agents|No agents/);
    expect(renderToStaticMarkup(<HeaderDesignNote trace={diagramOnly()} />)).toBe('');
    expect(designProvenance(diagramOnly()).kind).toBe('diagram-only');
  });

  it('marks a recovered design with its badge and a sentence, and says where page and code disagree', () => {
    const meta = renderToStaticMarkup(<HeaderDesignMeta trace={recovered()} />);
    expect(text(meta)).toContain('2 agents');
    expect(meta).toContain('data-testid="trace-recovered-badge"');
    expect(text(meta)).toContain('sub-agent model: the page says gpt-oss-120b, the code calls gpt-oss-20b');
    expect(
      disagreementText({ field: 'subAgentModel', page: '120b', code: 'gpt-oss-20b', codeOf: 'other-items' }),
    ).toBe("sub-agent model: the page says 120b, the other slides' code calls gpt-oss-20b");
    const note = text(renderToStaticMarkup(<HeaderDesignNote trace={recovered()} />));
    expect(note).toContain("Design recovered from the orchestrator's text, not executed");
    expect(note).toContain('draft 2 of 2');
    expect(recoverySentence({ ...recovery, drafts: 1, draft: 1, repairs: ['x'] })).toContain(
      'the one draft of agent blocks it wrote, edges from the ${…} references',
    );
  });

  it('a design recorded in code is neither recovered nor diagram-only', () => {
    const t = recovered();
    const recorded: Trace = { ...t, designer: { kind: 'imported', tool: 'MAS-Orchestra' } };
    expect(designProvenance(recorded).kind).toBe('recorded');
    expect(renderToStaticMarkup(<HeaderDesignMeta trace={recorded} />)).not.toContain('recovered');
  });
});

describe('the task panel of an imported slide', () => {
  it('lists every import note and states both models where the page and the code disagree', () => {
    const out = text(renderToStaticMarkup(<TaskPanel trace={recovered()} />));
    expect(out).toContain('Import notes (2)');
    for (const n of recovered().importNotes ?? []) expect(out).toContain(n.message);
    expect(out).toContain('page says gpt-oss-120b; code calls gpt-oss-20b');
    expect(out).toContain("orchestrator's text (recovered, not executed)");
    // The diagram is in the main area now, not in the 290 px column.
    expect(out).not.toContain('Diagram from the source tool');
  });
});

describe('the diagram viewer', () => {
  it('sets only base64 PNG, JPEG or WebP data URLs as an image source', () => {
    const out = renderToStaticMarkup(
      <DiagramViewer url={PNG} source="MAS-Orchestra" expanded={false} onExpand={() => undefined} />,
    );
    expect(out).toContain(`src="${PNG}"`);
    expect(out).toContain('Full size');
    for (const bad of [
      'data:image/svg+xml;base64,PHN2Zz4=',
      'javascript:alert(1)',
      'https://example.com/x.png',
      'data:image/png;base64,"onerror="alert(1)',
    ]) {
      expect(safeDiagram(bad)).toBeNull();
      expect(
        renderToStaticMarkup(
          <DiagramViewer url={bad} source="x" expanded={false} onExpand={() => undefined} />,
        ),
      ).toBe('');
    }
    expect(safeDiagram('data:image/jpeg;base64,/9j/4AAQ')).not.toBeNull();
    expect(safeDiagram(`data:image/png;base64,${'A'.repeat(8_000_000)}`)).toBeNull();
  });
});

describe('the import banner notes', () => {
  it('groups a note every slide shares into one line naming every slide, and drops none', () => {
    const a = recovered();
    const b: Trace = {
      ...recovered(),
      task: { ...a.task, source: { kind: 'masbench', axis: 'depth', value: 2, taskId: 'row 5' } },
    };
    const groups = groupImportNotes([
      { name: 'page.json', traces: [a, b], notes: [{ label: 'row 9', message: 'kept as a note' }] },
    ]);
    expect(groups).toEqual([
      { file: 'page.json', message: 'kept as a note', labels: ['row 9'] },
      { file: 'page.json', message: a.importNotes?.[0]?.message ?? '', labels: ['row 4', 'row 5'] },
      { file: 'page.json', message: a.importNotes?.[1]?.message ?? '', labels: ['row 4', 'row 5'] },
    ]);
  });
});
