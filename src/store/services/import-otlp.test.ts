import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foreignCrewExport } from '../../../tests/support/otlp-samples.ts';
import { toOtlpJson } from '../../interop/index.ts';
import { parseTraceJson } from '../../core/parse-trace.ts';
import { importOne } from './import.ts';

const debateText = readFileSync(join(import.meta.dirname, '../../../public/examples/debate.json'), 'utf8');

describe('dropping an OTLP/JSON file on the app', async () => {
  it('imports it through the OTLP importer and reports what was kept as notes', async () => {
    const r = await importOne('crew.otlp.json', JSON.stringify(foreignCrewExport()));
    expect(r.kind).toBe('otlp-json');
    expect(r.failures).toEqual([]);
    expect(r.traces).toHaveLength(1);
    expect(r.traces[0]!.design.agents.map((a) => a.id)).toEqual(['researcher', 'writer']);
    expect(r.notes?.map((n) => n.message).join(' ')).toMatch(/kept as notes/);
  });

  it("imports Baton's own OTLP export as the trace it came from", async () => {
    const trace = parseTraceJson(debateText);
    if (!trace.ok) throw new Error('example');
    const r = await importOne('debate.otlp.json', JSON.stringify(toOtlpJson([trace.value])));
    expect(r.traces).toEqual([trace.value]);
    expect(r.notes).toEqual([]);
  });

  it('leaves every other file to the importers', async () => {
    const r = await importOne('debate.json', debateText);
    expect(r.kind).toBe('baton-trace');
    expect(r.traces).toHaveLength(1);
    const broken = await importOne('x.json', '{"resourceSpans": "no"}');
    expect(broken.traces).toEqual([]);
    expect(broken.failures).toHaveLength(1);
  });
});
