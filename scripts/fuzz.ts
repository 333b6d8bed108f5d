/**
 * Fuzzes every parser of untrusted text (share links, trace JSON, designs, importers, OTLP, design
 * recovery from an orchestrator's text) with seeded
 * random and mutated inputs, and prints a summary. Exit code 1 when any input made a parser throw
 * or refuse without a message.
 *
 *   npx tsx scripts/fuzz.ts [--cases 10000] [--seed 1] [--case N]
 *
 * `--case N` replays one case of the run with the given seed and prints its input.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { importText } from '../src/importers/index.ts';
import {
  CORE_TARGETS,
  defaultCorpus,
  fuzzCase,
  importerTarget,
  runFuzz,
  type Corpus,
} from '../tests/support/fuzz.ts';
import { otlpTarget, withOtlpSamples } from '../tests/support/otlp-fuzz.ts';
import { recoverTarget, withThinkingSamples } from '../tests/support/recover-fuzz.ts';
import { runProviderFuzz } from '../tests/support/provider-fuzz.ts';

const SHARED = join(import.meta.dirname, '../../shared/data/mas-orchestra-cases');

/** Real MAS-Orchestra case files make better mutation seeds for the importer, when present. */
function withSharedSamples(corpus: Corpus): Corpus {
  if (!existsSync(SHARED)) return corpus;
  const imports = [...corpus.imports];
  for (const f of readdirSync(SHARED).filter((n) => n.endsWith('.json'))) {
    const slides = JSON.parse(readFileSync(join(SHARED, f), 'utf8')) as unknown[];
    imports.push({ text: JSON.stringify(slides.slice(0, 2)), fileName: f });
  }
  return { ...corpus, imports };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { cases: { type: 'string' }, seed: { type: 'string' }, case: { type: 'string' } },
    strict: true,
  });
  const cases = Number(values.cases ?? 10_000);
  const seed = Number(values.seed ?? 1);
  if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed)) {
    console.error('usage: tsx scripts/fuzz.ts [--cases N] [--seed S] [--case I]');
    return 2;
  }
  const corpus = withThinkingSamples(withOtlpSamples(withSharedSamples(defaultCorpus())));
  if (values.case !== undefined) {
    const g = fuzzCase(seed, Number(values.case), corpus, true);
    console.log(JSON.stringify({ generator: g.generator, fileName: g.fileName, input: g.input }));
    return 0;
  }
  const started = performance.now();
  const targets = [...CORE_TARGETS, importerTarget(importText), otlpTarget, recoverTarget];
  const s = runFuzz({ seed, cases, corpus, targets, oversized: true, clock: () => performance.now() });
  const seconds = (performance.now() - started) / 1000;

  console.log(`fuzz: ${cases} cases, seed ${seed}, ${seconds.toFixed(1)} s`);
  console.log(
    `inputs: ${Object.entries(s.byGenerator)
      .map(([g, n]) => `${g} ${n}`)
      .join(', ')}`,
  );
  for (const [name, c] of Object.entries(s.byTarget)) {
    console.log(
      `  ${name.padEnd(16)} accepted ${String(c.ok).padStart(6)}  refused ${String(c.refused).padStart(6)}`,
    );
  }
  if (s.slowest) {
    console.log(
      `slowest call: ${s.slowest.ms.toFixed(0)} ms (${s.slowest.target}, case ${s.slowest.case}, ${s.slowest.generator})`,
    );
  }
  // Provider replies through the client and the orchestrator's design loop (async, so run apart).
  const p = await runProviderFuzz({ seed, cases });
  console.log(
    `  ${'provider reply'.padEnd(16)} designed ${String(p.designed).padStart(6)}  refused ${String(p.refused).padStart(6)}  (${Object.entries(
      p.byKind,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')})`,
  );
  for (const f of p.findings.slice(0, 20)) console.log(`  provider case ${f.case} (${f.kind}): ${f.problem}`);
  if (s.findings.length === 0 && p.findings.length === 0) {
    console.log('result: 0 uncaught exceptions; every refusal had a message');
    return 0;
  }
  console.log(`result: ${s.findings.length} findings`);
  for (const f of s.findings.slice(0, 20)) {
    console.log(
      `  case ${f.case} ${f.target} (${f.generator}): ${f.problem}\n    ${JSON.stringify(f.preview)}`,
    );
  }
  console.log(`replay one with: npx tsx scripts/fuzz.ts --seed ${seed} --case <N>`);
  return 1;
}

process.exitCode = await main();
