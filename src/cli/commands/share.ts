/**
 * `baton share encode|decode`: trace file ⇄ share link. The codec is the pure `src/share` layer;
 * this file only parses arguments and reads files.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_TRACE_CHARS, parseTraceJson } from '../../core/parse-trace.ts';
import type { Problem } from '../../core/result.ts';
import {
  decodeTraceLink,
  designOnlyInDiagram,
  encodeTraceLink,
  LINK_BUDGET_CHARS,
  MAX_LINK_INPUT_CHARS,
  redactSecrets,
  shareUrl,
  smallestLink,
} from '../../share/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';

const usage = `Usage:
  baton share encode <trace.json> [--fit | --trim <chars>] [--base <url>]
  baton share decode <link-or-payload | @file>

encode  Prints facts about the link, then the link itself as the last line of stdout.
        API keys and other secrets are removed first; nothing else is changed, so
        decoding gives back the same trace. Above the ${LINK_BUDGET_CHARS}-character budget it
        says so; then --fit or --trim makes a smaller link.
  --fit           shorten long texts only as much as needed to fit the budget
  --trim <chars>  shorten every long output/message to this many characters (0 or more)
  --base <url>    print a full URL (the app's address) instead of only the "#t=…" fragment

decode  Prints the trace as JSON. Accepts a full URL, "#t=1.…", "t=1.…" or "1.…";
        "@file" reads the link from a file (for links longer than a command line allows).
        Offline: nothing is fetched.`;

type Parsed =
  | { ok: true; sub: 'encode'; file: string; trim: number | null; fit: boolean; base: string | null }
  | { ok: true; sub: 'decode'; input: string }
  | { ok: false; message: string };

function parse(args: string[]): Parsed {
  let values: { trim?: string; base?: string; fit?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args,
      options: { trim: { type: 'string' }, base: { type: 'string' }, fit: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const [sub, target, ...extra] = positionals;
  if (sub !== 'encode' && sub !== 'decode') {
    return {
      ok: false,
      message: sub === undefined ? 'missing subcommand "encode" or "decode"' : `unknown subcommand "${sub}"`,
    };
  }
  if (target === undefined || target.trim() === '') {
    return { ok: false, message: sub === 'encode' ? 'missing <trace.json>' : 'missing <link-or-payload>' };
  }
  if (extra.length > 0) return { ok: false, message: `unexpected argument "${extra[0]}"` };
  if (sub === 'decode') {
    if (values.trim !== undefined || values.base !== undefined || values.fit !== undefined) {
      return { ok: false, message: '--fit, --trim and --base apply to "encode" only' };
    }
    return { ok: true, sub, input: target };
  }
  let trim: number | null = null;
  if (values.trim !== undefined) {
    if (!/^\d{1,9}$/.test(values.trim.trim())) {
      return { ok: false, message: `--trim must be a whole number of characters, got "${values.trim}"` };
    }
    trim = Number(values.trim);
  }
  const base = values.base ?? null;
  if (base !== null && !/^https?:\/\/\S+$/.test(base)) {
    return { ok: false, message: `--base must be an http(s) URL, got "${base}"` };
  }
  if (trim !== null && values.fit) return { ok: false, message: 'use --fit or --trim, not both' };
  return { ok: true, sub, file: target, trim, fit: values.fit === true, base };
}

/** Reads a UTF-8 file, refusing files larger than `maxChars` bytes before reading them. */
async function readText(
  path: string,
  maxChars: number,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return { ok: false, message: `${path} is not a file` };
    if (info.size > maxChars)
      return { ok: false, message: `${path} is ${info.size} bytes; the limit is ${maxChars}` };
    return { ok: true, text: await readFile(path, 'utf8') };
  } catch (e) {
    return { ok: false, message: `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const reportProblems = (io: CliIO, problems: readonly Problem[]): void => {
  for (const p of problems) io.err(`baton share: ${p.code}: ${p.message}`);
};

async function encode(
  file: string,
  trim: number | null,
  fit: boolean,
  base: string | null,
  io: CliIO,
): Promise<number> {
  const path = resolve(io.cwd, file);
  const read = await readText(path, MAX_TRACE_CHARS);
  if (!read.ok) {
    io.err(`baton share: ${read.message}`);
    return 1;
  }
  const parsed = parseTraceJson(read.text);
  if (!parsed.ok) {
    reportProblems(io, parsed.errors);
    return 1;
  }
  const trace = parsed.value;
  const link =
    trim !== null
      ? encodeTraceLink(trace, { trimOutputsTo: trim })
      : fit
        ? smallestLink(trace)
        : encodeTraceLink(trace);
  const agents = trace.design.agents.length;
  const events = trace.execution.events.length;
  io.out(`trace: ${trace.id} — ${trace.title}`);
  io.out(`contents: ${agents} agent${agents === 1 ? '' : 's'}, ${events} event${events === 1 ? '' : 's'}`);
  if (JSON.stringify(redactSecrets(trace)) !== JSON.stringify(trace))
    io.out('secrets: removed from the link');
  if (link.trimmed) {
    io.out(`trimmed: ${link.trimmed.fields} field(s), ${link.trimmed.charsRemoved} characters removed`);
  }
  if (link.droppedDiagram) {
    io.out(
      link.droppedDiagram.onlyRecordOfDesign
        ? `lacks: the diagram (${link.droppedDiagram.chars} characters), the only record of this trace's design — the link opens with no design; share ${file} itself to keep it`
        : `lacks: the diagram (${link.droppedDiagram.chars} characters); the viewer redraws the design without it`,
    );
  }
  const diagramOnly = designOnlyInDiagram(trace);
  io.out(
    `link: ${link.chars} characters (budget ${LINK_BUDGET_CHARS}; JSON ${JSON.stringify(trace).length})` +
      (link.overBudget
        ? diagramOnly
          ? ` — OVER BUDGET: some apps may cut it. Its design exists only as the diagram, which --fit or --trim leave out; share ${file} itself to keep it`
          : ' — OVER BUDGET: some apps may cut it; --fit or a smaller --trim makes it shorter'
        : ''),
  );
  io.out(base === null ? link.fragment : shareUrl(base, link));
  return 0;
}

async function decode(input: string, io: CliIO): Promise<number> {
  let text = input;
  if (input.startsWith('@')) {
    const read = await readText(resolve(io.cwd, input.slice(1)), MAX_LINK_INPUT_CHARS);
    if (!read.ok) {
      io.err(`baton share: ${read.message}`);
      return 1;
    }
    text = read.text;
  }
  const r = decodeTraceLink(text);
  if (!r.ok) {
    reportProblems(io, r.errors);
    return 1;
  }
  io.out(JSON.stringify(r.value, null, 2));
  return 0;
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('share', args, usage, parse, io);
  if (typeof p === 'number') return p;
  return p.sub === 'encode' ? encode(p.file, p.trim, p.fit, p.base, io) : decode(p.input, io);
}

export const shareCommand: Command = {
  name: 'share',
  summary: 'turn a trace file into a share link, or a link back into a trace',
  usage,
  run,
};
