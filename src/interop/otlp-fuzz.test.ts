import { describe, expect, it } from 'vitest';
import { defaultCorpus, runFuzz } from '../../tests/support/fuzz.ts';
import { otlpTarget, withOtlpSamples } from '../../tests/support/otlp-fuzz.ts';

describe('fuzzing the OTLP importer', () => {
  it('no input throws, and every refusal explains itself', () => {
    const corpus = withOtlpSamples(defaultCorpus());
    const summary = runFuzz({ seed: 20261124, cases: 400, corpus, targets: [otlpTarget] });
    expect(summary.findings).toEqual([]);
    const c = summary.byTarget[otlpTarget.name]!;
    expect(c.ok + c.refused).toBe(400);
    // Mutated OTLP files reach the mapper: some still import, most inputs are refused.
    expect(c.ok).toBeGreaterThan(0);
    expect(c.refused).toBeGreaterThan(200);
  }, 60_000);
});
