import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  importOtlpText,
  importOtlpValue,
  StrictExportTraceServiceRequestSchema,
} from '../../interop/index.ts';
import { startOtlpReceiver, type Receiver } from '../../../tests/server/otlp-receiver.ts';
import { decodeExportTraceServiceRequest } from '../../../tests/support/otlp-proto-decode.ts';
import type { CliIO } from '../command.ts';
import { exportCommand } from './export.ts';

const EXAMPLES = fileURLToPath(new URL('../../../public/examples/', import.meta.url));

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;
let receiver: Receiver | null = null;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-export-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await receiver?.close();
  receiver = null;
});

describe('baton export --otlp', () => {
  it('writes OTLP/JSON that validates and imports back', async () => {
    const code = await exportCommand.run(
      [
        '--otlp',
        join(EXAMPLES, 'debate.json'),
        '--otlp',
        join(EXAMPLES, 'reflexion.json'),
        '--out',
        'otlp.json',
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out[0]).toMatch(/^wrote 2 traces, \d+ spans, OTLP json to /);
    const text = await readFile(join(dir, 'otlp.json'), 'utf8');
    expect(StrictExportTraceServiceRequestSchema.safeParse(JSON.parse(text)).success).toBe(true);
    const back = importOtlpText(text);
    expect(back.ok && back.items.map((i) => i.result.ok && i.result.value.id)).toEqual([
      'example-debate',
      'example-reflexion',
    ]);
  });

  it('writes protobuf bytes with --protocol protobuf', async () => {
    const code = await exportCommand.run(
      ['--otlp', join(EXAMPLES, 'parallel-branches.json'), '--out', 'otlp.pb', '--protocol', 'protobuf'],
      io,
    );
    expect(code).toBe(0);
    const bytes = new Uint8Array(await readFile(join(dir, 'otlp.pb')));
    const back = importOtlpValue(decodeExportTraceServiceRequest(bytes));
    expect(back.ok && back.items.map((i) => i.result.ok && i.result.value.id)).toEqual([
      'example-parallel-branches',
    ]);
  });

  it('POSTs to an endpoint with Basic auth and never prints the secret', async () => {
    receiver = await startOtlpReceiver({ basicAuth: 'pk-lf-1:sk-lf-topsecret-9' });
    const code = await exportCommand.run(
      [
        '--otlp',
        join(EXAMPLES, 'debate.json'),
        '--endpoint',
        `${receiver.url}/api/public/otel/v1/traces`,
        '--basic-auth',
        'pk-lf-1:sk-lf-topsecret-9',
        '--header',
        'x-langfuse-ingestion-version=4',
      ],
      io,
    );
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/sent 1 trace, \d+ spans, OTLP json to .* HTTP 200/);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]!.headers['x-langfuse-ingestion-version']).toBe('4');
    expect([...out, ...err].join('\n')).not.toContain('topsecret');
  });

  it('says why the endpoint refused, with exit code 1', async () => {
    receiver = await startOtlpReceiver({ protobufOnly: true });
    const code = await exportCommand.run(
      ['--otlp', join(EXAMPLES, 'debate.json'), '--endpoint', `${receiver.url}/v1/traces`],
      io,
    );
    expect(code).toBe(1);
    expect(err.join('\n')).toMatch(/HTTP 415.*protobuf/);
  });

  it('rejects bad usage with exit code 2', async () => {
    expect(await exportCommand.run(['--out', 'x.json'], io)).toBe(2);
    expect(await exportCommand.run(['--otlp', 'a.json'], io)).toBe(2);
    expect(await exportCommand.run(['--otlp', 'a.json', '--out', 'x', '--protocol', 'grpc'], io)).toBe(2);
    expect(await exportCommand.run(['--otlp', 'a.json', '--out', 'x', '--header', 'a=b'], io)).toBe(2);
    expect(await exportCommand.run(['--otlp', 'missing.json', '--out', 'x.json'], io)).toBe(1);
  });
});
