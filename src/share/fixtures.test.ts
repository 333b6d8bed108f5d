import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTraceLink, encodeTraceLink } from './index.ts';

/**
 * Links in tests/fixtures/links/links.json stand for links people have already shared. Every
 * future version of Baton must keep opening them with the same content, so this test must never
 * be "fixed" by editing or regenerating an existing fixture: a failure here means a change broke
 * old links (see docs/share-links.md, "Fixture policy"). New fixtures are appended by
 * scripts/make-link-fixtures.ts.
 */
interface LinkFixture {
  name: string;
  link: string;
  expect: { id: string; title: string; agents: number; events: number };
}

const fixtures = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../tests/fixtures/links/links.json'), 'utf8'),
) as LinkFixture[];

describe('link fixtures', () => {
  it('there are fixtures, with unique names', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(10);
    expect(new Set(fixtures.map((f) => f.name)).size).toBe(fixtures.length);
  });

  it.each(fixtures.map((f) => [f.name, f] as const))('%s opens with the expected content', (_, f) => {
    const r = decodeTraceLink(f.link);
    if (!r.ok) throw new Error(r.errors.map((e) => `${e.code}: ${e.message}`).join('\n'));
    expect(r.value.id).toBe(f.expect.id);
    expect(r.value.title).toBe(f.expect.title);
    expect(r.value.design.agents).toHaveLength(f.expect.agents);
    expect(r.value.execution.events).toHaveLength(f.expect.events);
    // Today's encoder must reproduce the same trace from what the old link held.
    const again = decodeTraceLink(encodeTraceLink(r.value).fragment);
    expect(again.ok && again.value).toEqual(r.value);
  });
});
