/**
 * What the benchmark scripts share when they report: their raw rows in bench/results/<name>.json,
 * their own `## <heading>` section of docs/benchmarks.md (the rest of the file is kept), and the
 * machine they ran on. bench/viewer.bench.mjs runs under plain Node, which cannot import this
 * TypeScript module, so it keeps its own copies.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const RESULTS_DIR = join(ROOT, 'bench/results');
const DOC = join(ROOT, 'docs/benchmarks.md');

/** Writes `data` as indented JSON (with a final newline) to bench/results/<name>.json. */
export function writeResults(name: string, data: unknown): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `doc` with its `## <heading>` section (up to the next `## ` heading) replaced by
 * `## <heading>`, a blank line and `body`; appended after a blank line when `doc` has no such
 * section. The result ends with a newline.
 */
export function replaceDocSection(doc: string, heading: string, body: string): string {
  const section = `## ${heading}\n\n${body}`;
  const start = doc.search(new RegExp(`^## ${escapeRegExp(heading)}\\s*$`, 'm'));
  let next: string;
  if (start < 0) {
    next = `${doc.trimEnd()}\n\n${section}`;
  } else {
    const rest = doc.slice(start + 1);
    const end = rest.search(/^## /m);
    next = doc.slice(0, start) + section + (end < 0 ? '' : `\n${rest.slice(end)}`);
  }
  return next.endsWith('\n') ? next : `${next}\n`;
}

/** Replaces the `## <heading>` section of docs/benchmarks.md (see `replaceDocSection`), creating the file if needed. */
export function writeDocSection(heading: string, body: string): void {
  const current = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  writeFileSync(DOC, replaceDocSection(current, heading, body));
}

/** The machine a benchmark runs on. */
export interface Machine {
  /** `process.version`. */
  node: string;
  /** The first core's model name, or 'unknown'. */
  cpu: string;
  cores: number;
}

export function machine(): Machine {
  return { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length };
}

/** The 1-, 5- and 15-minute load averages, rounded to two decimals. */
export function loadAverage(): [number, number, number] {
  const [one = 0, five = 0, fifteen = 0] = loadavg().map((x) => Math.round(x * 100) / 100);
  return [one, five, fifteen];
}
