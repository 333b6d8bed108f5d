/**
 * README.md's command lines, run as a new user pastes them: every line of its `sh` blocks, in
 * order, in one fresh folder holding a copy of `examples/`, each line through bash with a time
 * limit. A line passes when it exits 0 and neither stream has an error line (npm's "Unknown project
 * config" warning included). `npx baton` runs as `node bin/baton.mjs` (the temporary folder is no
 * npm project); one more test runs `npx baton help` itself in the repository, where npm reads the
 * project's config.
 *
 * Lines the test cannot run are skipped by a rule that names why (each shows up as a skipped test);
 * a line no rule covers is run. A slow line carries `quick run: --flag value …` in its comment, and
 * the test runs it with those flags instead of the ones written.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BATON = join(ROOT, 'bin/baton.mjs');
const LIMIT_MS = 180_000;

/** Lines not run, and why. */
const SKIP: readonly { test: RegExp; why: string }[] = [
  { test: /^npm install && npm start\b/, why: 'starts the dev server, which runs until stopped' },
  { test: /^npm install && npm test\b/, why: 'the whole test suite, which runs this test' },
  {
    test: /--execute remote|--backend openai|--api-key|https?:\/\//,
    why: 'needs the network or an API key',
  },
];

export interface ReadmeLine {
  /** The line as written in README.md. */
  line: string;
  /** The command to run: comment removed, `quick run:` flags applied. */
  command: string;
  skip: string | null;
}

/** The comment of a shell line: text after a `#` that starts a word outside quotes. */
function splitComment(line: string): { code: string; comment: string } {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!)))
      return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { code: line.trimEnd(), comment: '' };
}

/** `quick run: --a 1 --b 2` → the command with those flags' values replaced (or added). */
export function applyQuickRun(code: string, comment: string): string {
  const m = /quick run:\s*((?:--[\w-]+\s+[^\s-][^\s]*\s*)+)$/.exec(comment);
  if (!m) return code;
  let out = code;
  for (const [, flag, value] of m[1]!.matchAll(/(--[\w-]+)\s+(\S+)/g)) {
    const re = new RegExp(`${flag}\\s+\\S+`);
    out = re.test(out) ? out.replace(re, `${flag} ${value}`) : `${out} ${flag} ${value}`;
  }
  return out;
}

/** Every line of README.md's `sh` blocks. */
export function readmeLines(markdown: string): ReadmeLine[] {
  const lines: ReadmeLine[] = [];
  for (const block of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const { code, comment } = splitComment(line);
      const skip = SKIP.find((s) => s.test.test(code))?.why ?? null;
      lines.push({ line, command: applyQuickRun(code, comment), skip });
    }
  }
  return lines;
}

const lines = readmeLines(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const cwd = mkdtempSync(join(tmpdir(), 'baton-readme-'));
cpSync(join(ROOT, 'examples'), join(cwd, 'examples'), { recursive: true });
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** The environment of a plain shell: no Wayland runtime folder, as in containers and CI. */
function shellEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['XDG_RUNTIME_DIR'];
  return env;
}

const ERROR_LINE = /Unknown project config|^npm (warn|error)|\berror\b/i;

function problems(stdout: string, stderr: string): string[] {
  const err = stderr.split('\n').filter((l) => ERROR_LINE.test(l));
  // stdout's lines may quote task text; only a line that starts with "error" is one.
  const out = stdout.split('\n').filter((l) => /^(npm )?error\b/i.test(l));
  return [...err, ...out];
}

describe("README's command lines, in order, in a fresh folder", () => {
  it('finds the command block, with every command named in it', () => {
    const run = lines.filter((l) => l.skip === null);
    expect(run.length).toBeGreaterThanOrEqual(15);
    expect(run.filter((l) => l.command.includes('npx baton')).length).toBeGreaterThanOrEqual(14);
    // Only the two npm lines at the top are skipped today; a new skip must be a deliberate rule.
    expect(lines.filter((l) => l.skip !== null).map((l) => l.skip)).toEqual([
      'starts the dev server, which runs until stopped',
      'the whole test suite, which runs this test',
    ]);
  });

  for (const l of lines) {
    if (l.skip !== null) {
      it.skip(`${l.line}  (skipped: ${l.skip})`, () => {});
      continue;
    }
    const name = l.command === l.line ? l.line : `${l.line}  (run as: ${l.command})`;
    it(
      name,
      () => {
        const script = `set -euo pipefail\n${l.command.replaceAll('npx baton', `node ${JSON.stringify(BATON)}`)}`;
        const r = spawnSync('bash', ['-c', script], {
          cwd,
          env: shellEnv(),
          encoding: 'utf8',
          timeout: LIMIT_MS,
          maxBuffer: 64 * 1024 * 1024,
        });
        const tail = `\n--- stdout\n${r.stdout.slice(-2000)}\n--- stderr\n${r.stderr.slice(-2000)}`;
        expect(r.error, `${r.error?.message ?? ''}${tail}`).toBeUndefined();
        expect(r.status, tail).toBe(0);
        expect(problems(r.stdout, r.stderr), tail).toEqual([]);
      },
      LIMIT_MS + 10_000,
    );
  }

  it('npx baton, through npm in the repository, prints no npm warning', () => {
    const r = spawnSync('npx', ['--no-install', 'baton', 'help'], {
      cwd: ROOT,
      env: shellEnv(),
      encoding: 'utf8',
      timeout: LIMIT_MS,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('Usage: baton <command>');
    expect(r.stderr.split('\n').filter((l) => /npm (warn|error)|Unknown project config/i.test(l))).toEqual(
      [],
    );
  });
});

describe('the quick-run comment', () => {
  it('replaces the flags it names and adds the ones the command lacks', () => {
    expect(
      applyQuickRun('x --seeds 5 --iterations 10 --out a.json', 'quick run: --seeds 1 --eval-n 10'),
    ).toBe('x --seeds 1 --iterations 10 --out a.json --eval-n 10');
    expect(applyQuickRun('x --n 3', 'docs/train.md')).toBe('x --n 3');
  });

  it('a # inside quotes is not a comment', () => {
    const [l] = readmeLines("```sh\nnpx baton share decode '#t=1.x'   # the trace\n```\n");
    expect(l?.command).toBe("npx baton share decode '#t=1.x'");
  });
});
