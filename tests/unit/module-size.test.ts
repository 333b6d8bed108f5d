/**
 * No module under src/ is longer than 600 lines (tests excepted): a module that grows past it is
 * split along its own seams (one file per format, per state machine, per kernel family) before it
 * lands. Lines are counted as `wc -l` counts them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

export const MAX_MODULE_LINES = 600;

const ROOT = join(import.meta.dirname, '../..');

/** Every .ts/.tsx file under `dir` that is not a test (`*.test.ts`, `*.test.tsx`). */
export function modulesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...modulesUnder(path));
    else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
      out.push(path);
  }
  return out;
}

export function lineCount(text: string): number {
  return (text.match(/\n/g) ?? []).length + (text.length > 0 && !text.endsWith('\n') ? 1 : 0);
}

it(`no module under src/ has more than ${MAX_MODULE_LINES} lines`, () => {
  const modules = modulesUnder(join(ROOT, 'src'));
  expect(modules.length).toBeGreaterThan(100);
  const over = modules
    .map((path) => ({ path: relative(ROOT, path), lines: lineCount(readFileSync(path, 'utf8')) }))
    .filter((m) => m.lines > MAX_MODULE_LINES)
    .map((m) => `${m.path}: ${m.lines} lines`);
  expect(over).toEqual([]);
});

it('counts lines as wc -l does, and leaves tests out', () => {
  expect(lineCount('')).toBe(0);
  expect(lineCount('a\nb\n')).toBe(2);
  expect(lineCount('a\nb')).toBe(2);
  const files = modulesUnder(join(ROOT, 'src', 'cli'));
  expect(files.some((f) => f.endsWith('main.ts'))).toBe(true);
  expect(files.some((f) => f.includes('.test.'))).toBe(false);
});
