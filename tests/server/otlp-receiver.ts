import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeExportTraceServiceRequest } from '../support/otlp-proto-decode.ts';

/**
 * A local OTLP/HTTP trace receiver for tests: it takes `POST /v1/traces` (Phoenix's path) and
 * `POST /api/public/otel/v1/traces` (Langfuse's), decodes what arrives — JSON, or protobuf with the
 * test decoder — and keeps it for the test to inspect. It can act like Phoenix (refuse JSON with
 * 415) and like Langfuse (require HTTP Basic auth), and can fail the first requests with a status.
 */

export interface Received {
  path: string;
  contentType: string;
  authorization: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  /** The request decoded into the OTLP/JSON mapping. */
  body: unknown;
  bytes: number;
}

export interface ReceiverOptions {
  /** Answer 415 to `application/json`, as Arize Phoenix does. */
  protobufOnly?: boolean;
  /** `user:password` the Basic auth header must carry (as Langfuse's public:secret key pair). */
  basicAuth?: string;
  /** Answer these statuses to the first requests, in order (e.g. [503] to test a retry). */
  failFirst?: number[];
}

export interface Receiver {
  url: string;
  received: Received[];
  close: () => Promise<void>;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOtlpReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const received: Received[] = [];
  const failures = [...(options.failFirst ?? [])];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readAll(req);
      const path = (req.url ?? '').split('?')[0] ?? '';
      if (req.method !== 'POST' || (path !== '/v1/traces' && path !== '/api/public/otel/v1/traces')) {
        res.writeHead(404).end();
        return;
      }
      const fail = failures.shift();
      if (fail !== undefined) {
        res.writeHead(fail, { 'content-type': 'text/plain' }).end('try again');
        return;
      }
      if (options.basicAuth !== undefined) {
        const expected = `Basic ${Buffer.from(options.basicAuth).toString('base64')}`;
        if (req.headers.authorization !== expected) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"message":"unauthorized"}');
          return;
        }
      }
      const contentType = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      let decoded: unknown;
      try {
        if (contentType === 'application/json') {
          if (options.protobufOnly) {
            res.writeHead(415, { 'content-type': 'text/plain' }).end('Unsupported content type');
            return;
          }
          decoded = JSON.parse(body.toString('utf8'));
        } else if (contentType === 'application/x-protobuf') {
          decoded = decodeExportTraceServiceRequest(new Uint8Array(body));
        } else {
          res.writeHead(415).end();
          return;
        }
      } catch (e) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e));
        return;
      }
      received.push({
        path,
        contentType,
        authorization: req.headers.authorization,
        headers: req.headers,
        body: decoded,
        bytes: body.length,
      });
      // An empty ExportTraceServiceResponse: `{}` for JSON, zero bytes for protobuf.
      if (contentType === 'application/json')
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
