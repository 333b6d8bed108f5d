import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TraceSchema, type Trace } from '../core/trace.ts';
import { referencesIn } from '../design/references.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { importText, importValue, type ImportOutcome } from './index.ts';
import { NO_TIMING_NOTE } from './snapshot.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../tests/fixtures/importers/${name}`, import.meta.url), 'utf8');

function only(outcome: ImportOutcome): { trace: Trace; warnings: string[] } {
  if (!outcome.ok) throw new Error(outcome.error.message);
  expect(outcome.kind).toBe('mas-orchestra-snapshot');
  expect(outcome.items).toHaveLength(1);
  const item = outcome.items[0];
  if (!item?.result.ok)
    throw new Error(item?.result.ok === false ? item.result.errors[0]?.message : 'no item');
  return {
    trace: TraceSchema.parse(item.result.value),
    warnings: item.result.warnings.map((w) => w.message),
  };
}

describe('MAS-Orchestra demo snapshots', () => {
  it('imports a finished high-DoM run: graph, states as events at t = 0, answer agent, correctness', () => {
    const { trace: t, warnings } = only(importText(fixture('snapshot-high.json'), 'snapshot-high.json'));
    expect(t.title).toBe('Muffins across two shops');
    expect(t.createdAt).toBe('2026-03-14T09:26:53.000Z');
    expect(t).not.toHaveProperty('createdAtKnown');
    expect(t.task).toMatchObject({
      groundTruth: '27',
      source: { kind: 'masbench', axis: 'depth', value: 4 },
    });
    expect(t.designer).toEqual({
      kind: 'imported',
      tool: 'MAS-Orchestra',
      subAgentModel: 'gpt-oss-120b',
      dom: 'high',
    });
    expect(t.design.dom).toBe('high');
    expect(t.design.thinking).toBe(
      'Split extraction from arithmetic, solve the two shops in parallel, then add.',
    );
    expect(t.design.agents.find((a) => a.id === 'cafe')?.params).toEqual({ samples: 3, temperature: 0.7 });
    expect(t.design.agents.find((a) => a.id === 'total')?.params).toEqual({
      debateRoles: ['Adder', 'Checker'],
      maxRounds: 2,
    });
    // depends_on repeats the edges; they are not doubled.
    expect(t.design.edges).toHaveLength(4);
    expect(t.tags).not.toContain('invalid-design');
    expect(t.execution.status).toBe('completed');
    expect(t.execution.events.every((e) => e.t === 0)).toBe(true);
    expect(t.execution.events[0]).toEqual({
      type: 'agent.note',
      t: 0,
      agentId: 'extract',
      kind: 'import',
      text: NO_TIMING_NOTE,
    });
    expect(t.execution.events.filter((e) => e.type === 'agent.end').map((e) => e.agentId)).toEqual([
      'extract',
      'bakery',
      'cafe',
      'total',
    ]);
    expect(t.execution.events.at(-1)).toEqual({ type: 'run.end', t: 0, status: 'completed' });
    expect(t.result).toEqual({ finalAnswer: '27', answerAgent: 'total', correct: true });
    expect(t.totals.wallMs).toBe(0);
    expect(warnings.join(' ')).toContain('2 chat messages');
  });

  it('imports a run with a failed agent and one that never ran', () => {
    const { trace: t } = only(importText(fixture('snapshot-partial.json')));
    expect(t.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(t.designer.kind === 'imported' && t.designer.dom).toBe('high_extensive');
    expect(t.design.dom).toBe('high');
    const error = t.execution.events.find((e) => e.type === 'agent.error');
    expect(error).toEqual({
      type: 'agent.error',
      t: 0,
      agentId: 'reduce',
      error: 'Sub-agent call timed out after 120 s',
      placeholder: '[reduce failed: Sub-agent call timed out after 120 s]',
    });
    expect(t.execution.events).toContainEqual({
      type: 'agent.note',
      t: 0,
      agentId: 'check',
      kind: 'status',
      text: 'pending when the snapshot was taken',
    });
    expect(t.execution.status).toBe('failed');
    expect(t.result).toEqual({ finalAnswer: '', answerAgent: 'check', correct: false });
  });

  it('reads the design from plan.xml when there is no graph', () => {
    const snap = JSON.parse(fixture('snapshot-high.json')) as Record<string, unknown>;
    delete snap.graph;
    const { trace: t } = only(importValue(snap));
    expect(t.design.agents.map((a) => [a.id, a.type])).toEqual([
      ['extract', 'CoTAgent'],
      ['bakery', 'CoTAgent'],
      ['cafe', 'SCAgent'],
      ['total', 'DebateAgent'],
    ]);
    expect(t.design.edges).toHaveLength(4);
    expect(t.result.answerAgent).toBe('total');
  });

  it('a running snapshot stays running and is not scored yet', () => {
    const snap = JSON.parse(fixture('snapshot-high.json')) as {
      agent_states: Record<string, unknown>;
      final_answer: string;
    };
    snap.agent_states.total = { status: 'running' };
    snap.final_answer = '';
    const { trace: t } = only(importValue(snap));
    expect(t.execution.status).toBe('running');
    expect(t.tags).toContain('snapshot-incomplete');
    expect(t.result.correct).toBeNull();
    expect(t.execution.events.some((e) => e.type === 'run.end')).toBe(false);
  });

  it('a direct solution becomes a design without agents', () => {
    const { trace: t } = only(
      importValue({
        problem: 'What is 2 + 2?',
        dom: 'low',
        graph: { agents: [], edges: [], direct_solution: '4' },
        final_answer: '4',
        expected_answer: 4,
      }),
    );
    expect(t.design).toMatchObject({ dom: 'low', agents: [], directAnswer: '4' });
    expect(t.result.correct).toBe(true);
    expect(t.execution.events).toEqual([]);
  });

  it('keeps a broken graph and marks it; odd values become warnings, not failures', () => {
    const { trace: t, warnings } = only(
      importValue({
        problem: 'Q',
        dom: 'medium',
        created_at: 'yesterday',
        graph: {
          agents: [
            { id: 'a', type: 'CoTAgent', description: '', input: '', depends_on: [] },
            { id: 'b', type: 'CoTAgent', description: '', input: '', depends_on: [] },
          ],
          edges: [],
          answer_agent: 'zzz',
        },
        agent_states: { a: { status: 'completed', output: 1 }, ghost: { status: 'completed' } },
      }),
    );
    expect(t.tags).toEqual(expect.arrayContaining(['invalid-design', 'design-rule-4']));
    // "yesterday" is no date: the epoch is a placeholder, marked as such.
    expect(t.createdAt).toBe('1970-01-01T00:00:00.000Z');
    expect(t.createdAtKnown).toBe(false);
    expect(t.result.answerAgent).toBeUndefined();
    expect(t.execution.status).toBe('running');
    const all = warnings.join('\n');
    expect(all).toContain('"medium"');
    expect(all).toContain('"yesterday"');
    expect(all).toContain('"ghost"');
    expect(all).toContain('answer_agent "zzz"');
  });

  it('renames a non-ASCII agent id together with every reference to it, and reports only rule 13', () => {
    const { trace: t, warnings } = only(
      importValue({
        problem: 'How fast does a rhea run?',
        dom: 'high',
        graph: {
          agents: [
            { id: 'ñandú', type: 'CoTAgent', description: 'Estimate.', input: '', depends_on: [] },
            {
              id: 'judge',
              type: 'CoTAgent',
              description: 'Check.',
              input: 'Check ${ñandú}.',
              depends_on: ['ñandú'],
            },
          ],
          edges: [{ source: 'ñandú', target: 'judge' }],
          answer_agent: 'judge',
        },
        agent_states: {
          ñandú: { status: 'completed', output: '60 km/h' },
          judge: { status: 'completed', output: '60 km/h' },
        },
        final_answer: '60 km/h',
      }),
    );
    expect(t.design.agents.map((a) => a.id)).toEqual(['nandu', 'judge']);
    expect(t.design.edges).toEqual([{ from: 'nandu', to: 'judge' }]);
    expect(referencesIn(t.design.agents[1]?.input ?? '')).toEqual(['nandu']);
    expect(t.design.agents[1]?.input).toBe('Check ${nandu}.');
    expect(t.execution.events.filter((e) => e.type === 'agent.end').map((e) => e.agentId)).toEqual([
      'nandu',
      'judge',
    ]);
    // The design as written broke the id rule and nothing else; the imported one breaks nothing.
    expect(t.tags.filter((tag) => tag.startsWith('design-rule-'))).toEqual(['design-rule-13']);
    expect(validateDesign(fromDesign(t.design))).toEqual([]);
    expect(warnings.join('\n')).toContain('"ñandú"');
  });

  it('a snapshot without a problem is a per-item error, not a crash', () => {
    const outcome = importValue({ problem: 42, graph: {} });
    expect(outcome.ok).toBe(true);
    if (outcome.ok) {
      expect(outcome.items[0]?.result.ok).toBe(false);
      if (outcome.items[0]?.result.ok === false) {
        expect(outcome.items[0].result.errors[0]?.message).toContain('not a MAS-Orchestra demo snapshot');
      }
    }
  });
});
