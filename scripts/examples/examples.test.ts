import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceJson } from '../../src/core/parse-trace.ts';
import { computeTotals } from '../../src/core/totals.ts';
import { fromDesign, validateDesign } from '../../src/design/validate.ts';
import { EXAMPLES } from './examples.ts';
import { exampleFiles } from './files.ts';

describe('bundled examples', () => {
  const files = exampleFiles(EXAMPLES);

  it('are committed exactly as the generator writes them (run `npm run examples`)', () => {
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(join('public', 'examples', name), 'utf8'), name).toBe(text);
    }
  });

  it('are valid traces with valid designs and consistent totals', () => {
    for (const e of EXAMPLES) {
      const parsed = parseTraceJson(files[e.file] as string);
      expect(parsed.ok, e.file).toBe(true);
      if (!parsed.ok) continue;
      const t = parsed.value;
      expect(validateDesign(fromDesign(t.design)), e.file).toEqual([]);
      expect(t.totals).toEqual(computeTotals(t.design, t.execution.events));
      // Every agent of the design ran (started) in the recorded execution.
      const started = new Set(
        t.execution.events.flatMap((ev) => (ev.type === 'agent.start' ? [ev.agentId] : [])),
      );
      expect([...started].sort(), e.file).toEqual(t.design.agents.map((a) => a.id).sort());
    }
  });

  it('cover the structures the gallery promises', () => {
    const all = EXAMPLES.map((e) => e.trace);
    const types = new Set(all.flatMap((t) => t.design.agents.map((a) => a.type)));
    for (const type of ['DebateAgent', 'ReflexionAgent', 'CEOAgent', 'SCAgent'])
      expect(types).toContain(type);
    expect(all.some((t) => t.execution.events.some((e) => e.type === 'agent.error'))).toBe(true);
    expect(all.some((t) => t.construction.length > 0)).toBe(true);
    // Parallel branches: some trace has two agents whose runs overlap in time.
    const overlaps = all.some((t) => {
      const starts = t.execution.events.filter((e) => e.type === 'agent.start');
      return starts.some((a, i) => starts.some((b, j) => i !== j && a.t === b.t));
    });
    expect(overlaps).toBe(true);
  });
});
