import { describe, expect, it } from 'vitest';
import { importText } from '../importers/index.ts';
import {
  CORE_TARGETS,
  defaultCorpus,
  fuzzCase,
  importerTarget,
  runFuzz,
  type FuzzTarget,
} from '../../tests/support/fuzz.ts';

const FUZZ_TARGETS = [...CORE_TARGETS, importerTarget(importText)];

describe('fuzzing the parsers of untrusted text', () => {
  it('no input throws, and every refusal explains itself', () => {
    const summary = runFuzz({ seed: 20261122, cases: 300, targets: FUZZ_TARGETS });
    expect(summary.findings).toEqual([]);
    for (const t of FUZZ_TARGETS) {
      const c = summary.byTarget[t.name]!;
      expect(c.ok + c.refused).toBe(300);
      // Mutated inputs must mostly be refused; a target that accepts everything checks nothing.
      expect(c.refused).toBeGreaterThan(100);
    }
    expect(Object.keys(summary.byGenerator).length).toBeGreaterThanOrEqual(8);
  }, 20_000);

  it('refuses oversized inputs by size', () => {
    const corpus = defaultCorpus();
    let found = 0;
    for (let i = 0; i < 2000 && found < 3; i++) {
      const g = fuzzCase(1, i, corpus, true);
      if (g.generator !== 'oversized') continue;
      found += 1;
      for (const t of FUZZ_TARGETS) {
        const v = t.run(g.input, undefined);
        expect(v.ok, t.name).toBe(false);
      }
    }
    expect(found).toBe(3);
  });

  it('reports a target that throws or refuses silently', () => {
    const throws: FuzzTarget = {
      name: 'throws',
      run: () => {
        throw new Error('boom');
      },
    };
    const silent: FuzzTarget = { name: 'silent', run: () => ({ ok: false, messages: [''] }) };
    const s = runFuzz({ seed: 1, cases: 5, targets: [throws, silent] });
    expect(s.findings.filter((f) => f.target === 'throws' && f.problem.includes('boom'))).toHaveLength(5);
    expect(s.findings.filter((f) => f.target === 'silent')).toHaveLength(5);
  });

  it('is reproducible from the seed', () => {
    const corpus = defaultCorpus();
    expect(fuzzCase(7, 42, corpus)).toEqual(fuzzCase(7, 42, corpus));
  });
});
