import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceJson } from '../core/parse-trace.ts';
import { StrictExportTraceServiceRequestSchema } from '../interop/index.ts';
import { otlpJsonOf } from './interop.ts';

describe('the OTLP download of the trace page', () => {
  it('is the OTLP/JSON export of the open trace', async () => {
    const r = parseTraceJson(
      readFileSync(join(import.meta.dirname, '../../public/examples/reflexion.json'), 'utf8'),
    );
    if (!r.ok) throw new Error('example');
    const text = await otlpJsonOf(r.value);
    const parsed = StrictExportTraceServiceRequestSchema.safeParse(JSON.parse(text));
    expect(parsed.success).toBe(true);
    expect(text).toContain('"invoke_agent"');
  });
});
