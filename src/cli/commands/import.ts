import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import { IMPORT_LIMITS, importText } from '../../importers/index.ts';
import { importOtlpValue, looksLikeOtlp, type OtlpImportOutcome } from '../../interop/index.ts';
import type { CliIO, Command } from '../command.ts';

const USAGE = `Usage: baton import <file> --out <dir>

Imports another tool's file and writes one Baton trace (baton.trace/1 JSON) per item into <dir>.
Reads MAS-Orchestra case pages (the HTML page or its slides as JSON), MAS-Orchestra demo share
snapshots, Baton traces of any supported version (one, a list, or {"traces": [...]}), and
OpenTelemetry OTLP/JSON trace exports (one trace per OTLP trace id; see docs/interop.md).

Prints one line per item: "ok <written file> <label>" or "error <label>: <message>".
Exit code: 0 when at least one item was imported, 1 when nothing could be, 2 for usage errors.`;

/** A file name made only of characters every file system accepts. */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, 120);
  return cleaned === '' ? 'trace' : cleaned;
}

/** An OTLP/JSON export goes to src/interop's importer (the importers layer may not call it). */
function otlpOutcome(text: string): OtlpImportOutcome | null {
  if (!text.includes('"resourceSpans"')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return null;
  }
  if (!looksLikeOtlp(value)) return null;
  return importOtlpValue(value);
}

interface Args {
  file: string;
  out: string;
}

function parseArgs(args: string[]): Args | string {
  let file: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--out' || a === '-o') {
      const v = args[i + 1];
      if (v === undefined || v === '') return `${a} needs a directory.`;
      out = v;
      i++;
    } else if (a.startsWith('--out=')) {
      out = a.slice('--out='.length);
    } else if (a.startsWith('-') && a !== '-') {
      return `unknown option "${a}".`;
    } else if (file === undefined) {
      file = a;
    } else {
      return `one file at a time (got "${file}" and "${a}").`;
    }
  }
  if (file === undefined) return 'no file given.';
  if (out === undefined || out === '') return 'no output directory given (--out <dir>).';
  return { file, out };
}

async function run(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.err(`baton import: ${args}`);
    io.err(USAGE);
    return 2;
  }
  const path = resolve(io.cwd, args.file);
  let text: string;
  try {
    const info = await stat(path);
    // Check the size before reading: the limit is in characters, bytes are an upper bound on them.
    if (info.size > IMPORT_LIMITS.chars * 4) {
      io.err(
        `baton import: ${args.file} is ${info.size} bytes; the limit is ${IMPORT_LIMITS.chars} characters.`,
      );
      return 1;
    }
    text = await readFile(path, 'utf8');
  } catch (e) {
    io.err(`baton import: cannot read ${args.file}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }

  const outcome = otlpOutcome(text) ?? importText(text, basename(path));
  if (!outcome.ok) {
    io.err(`error ${basename(path)}: ${outcome.error.message}`);
    return 1;
  }
  const outDir = resolve(io.cwd, args.out);
  try {
    await mkdir(outDir, { recursive: true });
  } catch (e) {
    io.err(`baton import: cannot create ${args.out}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }

  const used = new Set<string>();
  let written = 0;
  for (const item of outcome.items) {
    if (!item.result.ok) {
      io.out(`error ${item.label}: ${item.result.errors.map((p) => p.message).join('; ')}`);
      continue;
    }
    const trace = item.result.value;
    const stem = safeFileName(trace.id);
    let name = `${stem}.json`;
    // The same trace twice in one file still gets two files.
    for (let n = 2; used.has(name); n++) name = `${stem}-${n}.json`;
    used.add(name);
    try {
      await writeFile(resolve(outDir, name), JSON.stringify(trace, null, 2) + '\n', 'utf8');
    } catch (e) {
      io.out(`error ${item.label}: cannot write ${name}: ${e instanceof Error ? e.message : String(e)}`);
      continue;
    }
    written++;
    io.out(`ok ${name} ${item.label}`);
    for (const w of item.result.warnings) io.err(`warning ${item.label}: ${w.message}`);
  }
  if (written === 0) {
    io.err(`baton import: nothing in ${basename(path)} could be imported.`);
    return 1;
  }
  return 0;
}

export const importCommand: Command = {
  name: 'import',
  summary: 'Convert MAS-Orchestra case pages, demo snapshots or Baton traces into trace files.',
  usage: USAGE,
  run,
};
