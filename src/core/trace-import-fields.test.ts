import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseTraceValue } from './parse-trace.ts';
import { MAX_IMPORT_NOTES, TraceSchema, type DesignRecovery, type Trace } from './trace.ts';
import { minimalTrace } from './trace-builders.ts';

/** The optional fields importers add: design recovery, page/code disagreements, import notes, diagrams. */

const base = (): Trace =>
  minimalTrace({
    id: 'imported-1',
    query: 'Q?',
    groundTruth: '1',
    source: { kind: 'imported', tool: 'MAS-Orchestra' },
    designer: { kind: 'imported', tool: 'MAS-Orchestra' },
  });

const recovery: DesignRecovery = {
  from: 'orchestrator-thinking',
  method: 'agent-blocks',
  draft: 2,
  drafts: 2,
  agents: 3,
  edges: 2,
  edgesFrom: 'edge-block',
  repairs: ['Edge A → B added.'],
  executed: false,
};

describe('baton.trace/1 importer fields', () => {
  it('keeps traces written before these fields valid', () => {
    const old = JSON.parse(
      readFileSync(new URL('../../tests/fixtures/traces/debate.json', import.meta.url), 'utf8'),
    ) as Record<string, unknown>;
    expect('importNotes' in old).toBe(false);
    const r = parseTraceValue(old);
    expect(r.ok).toBe(true);
    expect(r.ok && r.value.importNotes).toBeUndefined();
  });

  it('round-trips a recovered design, disagreements and notes', () => {
    const t: Trace = {
      ...base(),
      designer: {
        kind: 'imported',
        tool: 'MAS-Orchestra',
        designRecovery: recovery,
        disagreements: [{ field: 'subAgentModel', page: 'gpt-oss-120b', code: 'gpt-oss-20b' }],
      },
      importNotes: [{ code: 'E_IMPORT_ITEM', message: 'page says 120b, code calls 20b', path: 'row 3' }],
      diagram: 'data:image/webp;base64,UklGRg==',
    };
    expect(TraceSchema.parse(JSON.parse(JSON.stringify(t)))).toEqual(t);
  });

  it('rejects a recovery that claims to have run, a non-image diagram and too many notes', () => {
    const ran = {
      ...base(),
      designer: { kind: 'imported', tool: 'x', designRecovery: { ...recovery, executed: true } },
    };
    expect(TraceSchema.safeParse(ran).success).toBe(false);
    const badDraft = {
      ...base(),
      designer: { kind: 'imported', tool: 'x', designRecovery: { ...recovery, draft: 0 } },
    };
    expect(TraceSchema.safeParse(badDraft).success).toBe(false);
    for (const diagram of [
      'data:image/svg+xml;base64,PHN2Zz4=',
      'data:image/gif;base64,R0lGOD==',
      'javascript:alert(1)',
      'data:image/png;base64,<script>',
      `data:image/png;base64,${'A'.repeat(8_000_000)}`,
    ]) {
      expect(TraceSchema.safeParse({ ...base(), diagram }).success, diagram.slice(0, 30)).toBe(false);
    }
    const note = { code: 'E_IMPORT_ITEM', message: 'n' };
    expect(
      TraceSchema.safeParse({ ...base(), importNotes: Array(MAX_IMPORT_NOTES).fill(note) }).success,
    ).toBe(true);
    expect(
      TraceSchema.safeParse({ ...base(), importNotes: Array(MAX_IMPORT_NOTES + 1).fill(note) }).success,
    ).toBe(false);
    expect(TraceSchema.safeParse({ ...base(), importNotes: [{ message: 'no code' }] }).success).toBe(false);
  });
});
