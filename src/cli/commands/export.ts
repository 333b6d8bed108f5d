/**
 * `baton export --otlp`: Baton traces → OpenTelemetry (OTLP/JSON or OTLP protobuf), written to a
 * file or POSTed to an OTLP/HTTP endpoint (Langfuse, Arize Phoenix, an OpenTelemetry Collector).
 * The encoding is src/interop's; the POST is executor/llm's `sendOtlp`; this file reads flags and
 * files. Header values are credentials and are never printed.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Trace } from '../../core/trace.ts';
import { basicAuth, sendOtlp, type OtlpProtocol } from '../../executor/llm/index.ts';
import { IMPORT_LIMITS, importText } from '../../importers/index.ts';
import { toOtlpJson, toOtlpProtobuf } from '../../interop/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';

const usage = `Usage: baton export --otlp <trace.json> [--otlp <more.json> …] --out <file> [--protocol json|protobuf]
       baton export --otlp <trace.json> --endpoint <url> [--protocol json|protobuf]
                    [--header name=value …] [--basic-auth user:password]

Converts Baton traces to OpenTelemetry spans following the GenAI semantic conventions (with
OpenInference attributes for Arize Phoenix): a root span per run, an invoke_agent span per agent,
a chat span per LLM call, design edges as span links. Secrets are removed first.

Each input may hold one trace, a list, {"traces": [...]}, or anything \`baton import\` reads.
Several inputs (an evaluation's traces) go out as one export, one OTLP trace per Baton trace.

Options:
  --otlp        input file (repeatable)
  --out         write the export to this file (OTLP/JSON, or protobuf bytes with --protocol protobuf)
  --endpoint    POST it to this OTLP/HTTP traces URL instead, e.g.
                  Langfuse: https://cloud.langfuse.com/api/public/otel/v1/traces (Basic auth)
                  Phoenix:  http://localhost:6006/v1/traces (protobuf only)
  --protocol    json (default) or protobuf
  --header      an HTTP header for the endpoint, name=value (repeatable)
  --basic-auth  user:password for an Authorization: Basic header (Langfuse: public key:secret key)

Exit code: 0 when written or accepted, 1 when reading, writing or sending failed, 2 for usage errors.`;

type Parsed =
  | {
      ok: true;
      inputs: string[];
      out: string | undefined;
      endpoint: string | undefined;
      protocol: OtlpProtocol;
      headers: Record<string, string>;
    }
  | { ok: false; message: string };

function parse(args: string[]): Parsed {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        otlp: { type: 'string', multiple: true },
        out: { type: 'string' },
        endpoint: { type: 'string' },
        protocol: { type: 'string' },
        header: { type: 'string', multiple: true },
        'basic-auth': { type: 'string' },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const inputs = (values.otlp as string[] | undefined) ?? [];
  if (inputs.length === 0) return { ok: false, message: '--otlp <trace.json> is required' };
  const out = values.out as string | undefined;
  const endpoint = values.endpoint as string | undefined;
  if ((out === undefined) === (endpoint === undefined)) {
    return { ok: false, message: 'give exactly one of --out <file> and --endpoint <url>' };
  }
  const protocol = (values.protocol as string | undefined) ?? 'json';
  if (protocol !== 'json' && protocol !== 'protobuf') {
    return { ok: false, message: `--protocol must be json or protobuf, got "${protocol}"` };
  }
  const headers: Record<string, string> = {};
  for (const h of (values.header as string[] | undefined) ?? []) {
    const at = h.search(/[=:]/);
    const name = at > 0 ? h.slice(0, at).trim() : '';
    if (!/^[A-Za-z0-9-]+$/.test(name)) {
      return {
        ok: false,
        message: `--header must be name=value with a header name of letters, digits and -`,
      };
    }
    headers[name] = h.slice(at + 1).trim();
  }
  const auth = values['basic-auth'] as string | undefined;
  if (auth !== undefined) {
    const colon = auth.indexOf(':');
    if (colon <= 0) return { ok: false, message: '--basic-auth must be user:password' };
    headers.Authorization = basicAuth(auth.slice(0, colon), auth.slice(colon + 1));
  }
  if (endpoint === undefined && Object.keys(headers).length > 0) {
    return { ok: false, message: '--header and --basic-auth go with --endpoint' };
  }
  return { ok: true, inputs, out, endpoint, protocol, headers };
}

async function readTraces(files: string[], io: CliIO): Promise<Trace[] | null> {
  const traces: Trace[] = [];
  for (const file of files) {
    const path = resolve(io.cwd, file);
    let text: string;
    try {
      const info = await stat(path);
      if (info.size > IMPORT_LIMITS.chars * 4) {
        io.err(
          `baton export: ${file} is ${info.size} bytes; the limit is ${IMPORT_LIMITS.chars} characters.`,
        );
        return null;
      }
      text = await readFile(path, 'utf8');
    } catch (e) {
      io.err(`baton export: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    }
    const outcome = importText(text, basename(path));
    if (!outcome.ok) {
      io.err(`baton export: ${file}: ${outcome.error.message}`);
      return null;
    }
    for (const item of outcome.items) {
      if (item.result.ok) traces.push(item.result.value);
      else io.err(`skipped ${item.label}: ${item.result.errors.map((p) => p.message).join('; ')}`);
    }
  }
  if (traces.length === 0) {
    io.err('baton export: no trace could be read.');
    return null;
  }
  return traces;
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('export', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const traces = await readTraces(p.inputs, io);
  if (!traces) return 1;
  const request = toOtlpJson(traces);
  const spans = request.resourceSpans.reduce(
    (n, rs) => n + (rs.scopeSpans ?? []).reduce((m, ss) => m + (ss.spans?.length ?? 0), 0),
    0,
  );
  const body = p.protocol === 'json' ? JSON.stringify(request) : toOtlpProtobuf(request);
  const what = `${traces.length} trace${traces.length === 1 ? '' : 's'}, ${spans} spans, OTLP ${p.protocol}`;
  if (p.out !== undefined) {
    const path = resolve(io.cwd, p.out);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, typeof body === 'string' ? `${JSON.stringify(request, null, 2)}\n` : body);
    } catch (e) {
      io.err(`baton export: cannot write ${p.out}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    io.out(`wrote ${what} to ${path}`);
    return 0;
  }
  const endpoint = p.endpoint!;
  const sent = await sendOtlp({ endpoint, protocol: p.protocol, body, headers: p.headers });
  if (!sent.ok) {
    io.err(
      `baton export: ${endpoint} did not accept the traces (${sent.attempts} attempt${sent.attempts === 1 ? '' : 's'}): ${sent.message}`,
    );
    return 1;
  }
  io.out(`sent ${what} to ${endpoint}: HTTP ${sent.status}`);
  return 0;
}

export const exportCommand: Command = {
  name: 'export',
  summary: 'export traces as OpenTelemetry (OTLP/JSON or protobuf) to a file or an OTLP/HTTP endpoint',
  usage,
  run,
};
