import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTraceValue } from '../../src/core/parse-trace.ts';
import type { Trace } from '../../src/core/trace.ts';
import { importOtlpText, toOtlpJson } from '../../src/interop/index.ts';
import type { Corpus, FuzzTarget } from './fuzz.ts';
import { foreignCrewExport } from './otlp-samples.ts';

/**
 * The OTLP importer under the fuzz harness (tests/support/fuzz.ts): a target, and seed files for
 * the mutators (the bundled examples' exports, a framework's export, an evaluation export).
 */
export const otlpTarget: FuzzTarget = {
  name: 'importOtlpText',
  run: (input) => {
    const outcome = importOtlpText(input);
    if (!outcome.ok) return { ok: false, messages: [outcome.error.message] };
    const messages = outcome.items.flatMap((i) =>
      i.result.ok ? [] : i.result.errors.length > 0 ? i.result.errors.map((e) => e.message) : [''],
    );
    return messages.length === 0 ? { ok: true } : { ok: false, messages };
  },
};

function bundledExamples(): Trace[] {
  const dir = join(import.meta.dirname, '../../public/examples');
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as { examples: { file: string }[] };
  return index.examples.flatMap(({ file }) => {
    const r = parseTraceValue(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    return r.ok ? [r.value] : [];
  });
}

/** The corpus with OTLP/JSON files added to the imports the mutators start from. */
export function withOtlpSamples(corpus: Corpus): Corpus {
  const examples = bundledExamples();
  const otlp = [
    ...examples.map((t) => ({ text: JSON.stringify(toOtlpJson([t])), fileName: `${t.id}.otlp.json` })),
    { text: JSON.stringify(toOtlpJson(examples.slice(0, 3))), fileName: 'evaluation.otlp.json' },
    { text: JSON.stringify(foreignCrewExport()), fileName: 'crew.otlp.json' },
  ];
  return { ...corpus, imports: [...corpus.imports, ...otlp] };
}
