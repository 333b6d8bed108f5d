import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseTraceValue } from '../../src/core/parse-trace.ts';
import type { Trace } from '../../src/core/trace.ts';
import { basicAuth, sendOtlp } from '../../src/executor/llm/index.ts';
import { importOtlpValue, toOtlpJson, toOtlpProtobuf } from '../../src/interop/index.ts';
import { startOtlpReceiver, type Receiver } from '../server/otlp-receiver.ts';
import { canonicalOtlp } from '../support/otlp-proto-decode.ts';

/**
 * The OTLP/HTTP sender against a real local HTTP receiver that decodes what arrives: JSON as
 * Langfuse takes it (Basic auth on /api/public/otel/v1/traces) and protobuf as Arize Phoenix takes
 * it (/v1/traces, JSON refused). Real sockets, no mocks.
 */
const EXAMPLES = join(import.meta.dirname, '../../public/examples');
const examples: Trace[] = ['debate.json', 'parallel-branches.json', 'failed-agent.json'].map((f) => {
  const r = parseTraceValue(JSON.parse(readFileSync(join(EXAMPLES, f), 'utf8')));
  if (!r.ok) throw new Error(f);
  return r.value;
});

let receiver: Receiver | null = null;
afterEach(async () => {
  await receiver?.close();
  receiver = null;
});

const noWait = async (): Promise<void> => undefined;

describe('sending OTLP/HTTP to a local receiver', () => {
  it('JSON with Basic auth, as Langfuse takes it; the receiver gets the same traces back', async () => {
    receiver = await startOtlpReceiver({ basicAuth: 'pk-lf-public:sk-lf-secret-123456' });
    const request = toOtlpJson(examples);
    const auth = basicAuth('pk-lf-public', 'sk-lf-secret-123456');
    const r = await sendOtlp({
      endpoint: `${receiver.url}/api/public/otel/v1/traces`,
      protocol: 'json',
      body: JSON.stringify(request),
      headers: { Authorization: auth },
    });
    expect(r).toMatchObject({ ok: true, status: 200, attempts: 1 });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.contentType).toBe('application/json');
    expect(got.authorization).toBe(auth);
    const back = importOtlpValue(got.body);
    expect(back.ok && back.items.map((i) => (i.result.ok ? i.result.value : null))).toEqual(examples);
  });

  it('a wrong key is refused with 401 and the message does not repeat the key', async () => {
    receiver = await startOtlpReceiver({ basicAuth: 'pk:right-secret' });
    const r = await sendOtlp({
      endpoint: `${receiver.url}/api/public/otel/v1/traces`,
      protocol: 'json',
      body: JSON.stringify(toOtlpJson(examples)),
      headers: { Authorization: basicAuth('pk', 'wrong-secret-value') },
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(401);
    expect(r.message).toMatch(/credentials/);
    expect(r.message).not.toContain(basicAuth('pk', 'wrong-secret-value').slice(6));
    expect(receiver.received).toHaveLength(0);
  });

  it('protobuf, as Phoenix takes it; JSON is refused with a hint to send protobuf', async () => {
    receiver = await startOtlpReceiver({ protobufOnly: true });
    const request = toOtlpJson(examples);
    const refused = await sendOtlp({
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'json',
      body: JSON.stringify(request),
    });
    expect(refused).toMatchObject({ ok: false, status: 415 });
    if (!refused.ok) expect(refused.message).toMatch(/protobuf/);

    const r = await sendOtlp({
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'protobuf',
      body: toOtlpProtobuf(request),
    });
    expect(r).toMatchObject({ ok: true, status: 200 });
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.contentType).toBe('application/x-protobuf');
    expect(canonicalOtlp(got.body)).toEqual(canonicalOtlp(JSON.parse(JSON.stringify(request))));
    const back = importOtlpValue(got.body);
    expect(back.ok && back.items.map((i) => (i.result.ok ? i.result.value : null))).toEqual(examples);
  });

  it('retries a 503 and then delivers once', async () => {
    receiver = await startOtlpReceiver({ failFirst: [503, 503] });
    const r = await sendOtlp({
      endpoint: `${receiver.url}/v1/traces`,
      protocol: 'protobuf',
      body: toOtlpProtobuf(toOtlpJson(examples)),
      sleep: noWait,
    });
    expect(r).toMatchObject({ ok: true, attempts: 3 });
    expect(receiver.received).toHaveLength(1);
  });

  it('reports an endpoint nobody listens on, and refuses credentials in the URL', async () => {
    receiver = await startOtlpReceiver();
    const url = receiver.url;
    await receiver.close();
    receiver = null;
    const r = await sendOtlp({
      endpoint: `${url}/v1/traces`,
      protocol: 'json',
      body: '{}',
      sleep: noWait,
      maxAttempts: 2,
    });
    expect(r).toMatchObject({ ok: false, status: null, attempts: 2 });
    if (!r.ok) expect(r.message).toMatch(/network error/);
    const withCreds = await sendOtlp({
      endpoint: 'http://user:pw@127.0.0.1:9/v1/traces',
      protocol: 'json',
      body: '{}',
    });
    expect(withCreds).toMatchObject({ ok: false, attempts: 0 });
  });
});
