import { describe, expect, it } from 'vitest';
import { runProviderFuzz } from '../support/provider-fuzz.ts';

describe('provider orchestrator fuzz', () => {
  it('random provider replies end in a design or a failure with a message, never a throw', async () => {
    const s = await runProviderFuzz({ seed: 3, cases: 600 });
    expect(s.findings).toEqual([]);
    expect(s.designed + s.refused).toBe(600);
    expect(s.designed).toBeGreaterThan(0);
    expect(s.refused).toBeGreaterThan(0);
    for (const k of ['truncated-xml', 'mutated-xml', 'huge', 'html', 'wrong-json', 'broken-sse'])
      expect(s.byKind[k], k).toBeGreaterThan(0);
  }, 120_000);
});
