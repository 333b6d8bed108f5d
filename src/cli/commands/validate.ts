/**
 * `baton validate <design>`: checks a MAS design (MAS-Orchestra XML or Baton JSON) against every
 * design rule and prints each one it breaks. Reading and checking are `src/design/parse.ts`.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { formatReport, parseDesign } from '../../design/parse.ts';
import { MAX_DESIGN_CHARS } from '../../design/xml.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';

const usage = `Usage: baton validate <design.xml|design.json> [--dom low|high]

Checks a MAS design against every rule (docs: "Design format") and prints each broken rule.
Exit code 0 when the design is valid, 1 when it is not or cannot be read.

Options:
  --dom low|high  Degree of MAS to check against (default: the JSON file's "dom"; otherwise low
                  for a single agent without edges, high for anything else)`;

/** Same bound parseDesign applies to text, checked on the file size before reading. */
const MAX_FILE_BYTES = MAX_DESIGN_CHARS * 4;

type Parsed = { ok: true; file: string; dom: 'low' | 'high' | undefined } | { ok: false; message: string };

function parse(args: string[]): Parsed {
  let values: Record<string, string | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { dom: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const [file, ...extra] = positionals;
  if (file === undefined || file.trim() === '') return { ok: false, message: 'missing <design file>' };
  if (extra.length > 0) return { ok: false, message: `unexpected argument "${extra[0]}"` };
  const dom = values.dom;
  if (dom !== undefined && dom !== 'low' && dom !== 'high') {
    return { ok: false, message: `--dom must be "low" or "high", got "${dom}"` };
  }
  return { ok: true, file, dom };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('validate', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const path = resolve(io.cwd, p.file);
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    if (info.size > MAX_FILE_BYTES) throw new Error(`${info.size} bytes; the limit is ${MAX_FILE_BYTES}`);
    text = await readFile(path, 'utf8');
  } catch (e) {
    io.err(`baton validate: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const report = parseDesign(text, p.dom);
  if (report.design) {
    const a = report.design.agents.length;
    const e = report.design.edges.length;
    io.out(`valid: ${a} agent${a === 1 ? '' : 's'}, ${e} edge${e === 1 ? '' : 's'}`);
    return 0;
  }
  const lines = formatReport(report);
  for (const line of lines) io.out(line);
  io.out(`invalid: ${lines.length} problem${lines.length === 1 ? '' : 's'} in ${p.file}`);
  return 1;
}

export const validateCommand: Command = {
  name: 'validate',
  summary: 'check a MAS design (XML or JSON) against every design rule',
  usage,
  run,
};
