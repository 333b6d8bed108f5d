import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTraceValue } from '../core/parse-trace.ts';
import type { Trace } from '../core/trace.ts';
import { canonicalOtlp, decodeExportTraceServiceRequest } from '../../tests/support/otlp-proto-decode.ts';
import { toOtlpJson } from './otlp-export.ts';
import { importOtlpValue } from './otlp-import.ts';
import { toOtlpProtobuf } from './otlp-protobuf.ts';

const EXAMPLES = join(import.meta.dirname, '../../public/examples');
const index = JSON.parse(readFileSync(join(EXAMPLES, 'index.json'), 'utf8')) as {
  examples: { file: string }[];
};
const examples: Trace[] = index.examples.flatMap(({ file }) => {
  const r = parseTraceValue(JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')));
  return r.ok ? [r.value] : [];
});

describe('OTLP protobuf', () => {
  it('decodes back to the same request as the JSON export, for every example', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const t of examples) {
      const json = toOtlpJson([t]);
      const bytes = toOtlpProtobuf(json);
      expect(bytes.length).toBeGreaterThan(100);
      const decoded = decodeExportTraceServiceRequest(bytes);
      expect(canonicalOtlp(decoded), t.id).toEqual(canonicalOtlp(JSON.parse(JSON.stringify(json))));
    }
  });

  it('round-trips a whole evaluation through protobuf and the importer', () => {
    const decoded = decodeExportTraceServiceRequest(toOtlpProtobuf(toOtlpJson(examples)));
    const outcome = importOtlpValue(decoded);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.items.map((i) => (i.result.ok ? i.result.value : i.result.errors))).toEqual(examples);
  });
});
