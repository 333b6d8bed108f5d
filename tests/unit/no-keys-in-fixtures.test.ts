import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactText } from '../../src/share/index.ts';

/**
 * No API key in what the repository ships as data: the test fixtures and the bundled examples. A
 * key-shaped string (the patterns share links redact: `sk-…`, `gsk_…`, `hf_…`, bearer
 * tokens, …) anywhere in them fails, naming the file.
 */
const ROOT = join(import.meta.dirname, '../..');
// The docs are left out: they show placeholders such as `Bearer <token>` on purpose.
const DIRS = ['tests/fixtures', 'public/examples'];
const TEXT = /\.(json|jsonl|txt|md|html|xml|csv|yaml|yml)$/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : TEXT.test(name) ? [path] : [];
  });
}

describe('test fixtures and bundled examples', () => {
  it('hold no API key', () => {
    const all = DIRS.flatMap((d) => files(join(ROOT, d)));
    expect(all.length).toBeGreaterThan(10);
    const withKeys = all.filter((f) => {
      const text = readFileSync(f, 'utf8');
      return redactText(text) !== text;
    });
    expect(withKeys.map((f) => f.slice(ROOT.length + 1))).toEqual([]);
  });

  it('would catch one', () => {
    const text = '{"authorization": "Bearer sk-proj-AbCdEfGhIjKlMnOpQrSt"}';
    expect(redactText(text)).not.toBe(text);
  });
});
