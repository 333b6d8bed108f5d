/**
 * A real, local HTTP server that speaks the OpenAI chat-completions wire format, with
 * injectable faults. Unit tests start it in-process (`startOpenAIServer`); browser e2e tests
 * and benchmarks run it as a process:
 *
 *   tsx tests/server/openai-server.ts --port 8787 --latency 200 [--fault-rate 0.2 --seed 7]
 *
 * Responses are deterministic functions of the request, so tests can assert exact output.
 * Faults come from three places, first match wins for each chat-completions request:
 *   1. the request header `x-test-fault: <FaultSpec as JSON>`;
 *   2. the one-shot queue (`setFaults({ once: [...] })` or `POST /__control`), consumed in order;
 *   3. the fault rate: with probability `rate` (seeded RNG) a fault drawn from `rateFaults`.
 * It never writes to the console unless run as a process (which prints its URL once).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse, IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { designScriptResponder } from './design-script.ts';

export interface WireMessage {
  role: string;
  content: string;
}

/** The subset of the request body the server reads. Unknown fields are recorded, not rejected. */
export interface ChatRequestBody {
  model?: string;
  messages?: WireMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_tokens?: number;
  /** OpenAI structured output, e.g. `{ type: 'json_schema', json_schema: { … } }`; responders read it. */
  response_format?: { type?: string };
}

/** One fault. Fields combine: e.g. `{ latencyMs: 50, status: 503 }` waits 50 ms, then fails. */
export interface FaultSpec {
  /** Extra delay before the response starts, in ms (added to the server-wide latency). */
  latencyMs?: number;
  /** Respond with this HTTP status and an OpenAI-shaped error body (e.g. 429, 500, 503). */
  status?: number;
  /** `Retry-After` header value sent with `status`: seconds ("2") or an HTTP date. */
  retryAfter?: string;
  /** Accept the request and never answer; the socket stays open until the client gives up. */
  hang?: boolean;
  /**
   * Destroy the socket after this many content chunks (streaming) or right after the
   * headers (non-streaming, any value). 0 means: headers, then nothing.
   */
  disconnectAfterChunks?: number;
  /** 'json': a body (or SSE data line) that is not JSON; 'shape': JSON without `choices`. */
  malformed?: 'json' | 'shape';
  /** Write the response in pieces of this many bytes, so that UTF-8 characters and SSE
   * lines straddle network reads. */
  fragmentBytes?: number;
  /** Wait between fragments, ms; 0 (default) yields one event-loop turn. A few ms make it
   * likely that each fragment arrives in its own read. */
  fragmentDelayMs?: number;
  /** Use CRLF line endings in the SSE stream. */
  crlf?: boolean;
  /** Interleave SSE comment lines (`: keep-alive`) between events. */
  comments?: boolean;
  /** Leave `usage` out of responses even when asked for it. */
  omitUsage?: boolean;
  /** Delay between streamed chunks, in ms. */
  chunkDelayMs?: number;
}

export interface ServerFaults {
  /** Added to every chat-completions response, in ms. */
  latencyMs?: number;
  /** Probability in [0, 1] that a request (without a header or queued fault) gets a fault. */
  rate?: number;
  /** Seed for the RNG that draws rate faults; resetting it restarts the sequence. */
  seed?: number;
  /** Faults a rate hit draws from, uniformly. Default: 500, 503, 429, disconnect. */
  rateFaults?: FaultSpec[];
  /** One-shot faults for the next requests, in order. Replaces the current queue. */
  once?: FaultSpec[];
  /** Answer 400 to any request with `response_format`, as servers without structured output do. */
  refuseResponseFormat?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  /** The fault applied, if any. */
  fault: FaultSpec | undefined;
  /** Wall-clock arrival time, ms since the epoch. */
  receivedAt: number;
}

export type Responder = (body: ChatRequestBody) => string;

export interface OpenAIServerOptions {
  port?: number;
  host?: string;
  /** If set, requests must carry `Authorization: Bearer <apiKey>`, else 401. */
  apiKey?: string;
  /** Put the full presented key into 401 error bodies, as a careless provider might, so
   * tests can check that clients keep it out of their own errors. */
  echoKeyInErrors?: boolean;
  /** Builds the assistant's reply; default {@link defaultResponder}. */
  responder?: Responder;
  /** Model ids listed by GET /v1/models. */
  models?: string[];
  /** Code points per streamed content chunk. Default 8. */
  streamChunkChars?: number;
  faults?: ServerFaults;
  /** Called with each reply's usage when its last byte is written: the server's own bill. */
  onBilled?: (usage: { prompt_tokens: number; completion_tokens: number }, model: string) => void;
}

export interface OpenAIServer {
  url: string;
  /** Base URL clients use: `${url}/v1`. */
  baseUrl: string;
  port: number;
  /** Every request received, in arrival order (including OPTIONS and control calls). */
  requests: RecordedRequest[];
  setFaults(faults: ServerFaults): void;
  /** Clears recorded requests and faults, and restarts the RNG. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_RATE_FAULTS: FaultSpec[] = [
  { status: 500 },
  { status: 503 },
  { status: 429, retryAfter: '0' },
  { disconnectAfterChunks: 0 },
];

/** Whitespace-and-length token count: ceil(chars / 4) per whitespace-separated word, so
 * counts grow with both words and length; the client's estimator uses a different rule,
 * which lets tests tell reported usage from estimated usage. */
export function countTokens(text: string): number {
  let n = 0;
  for (const word of text.split(/\s+/)) {
    if (word.length > 0) n += Math.ceil(word.length / 4);
  }
  return n;
}

/** OpenAI-style accounting: 3 tokens per message of framing plus 3 to prime the reply. */
export function promptTokens(messages: readonly WireMessage[]): number {
  return messages.reduce((sum, m) => sum + 3 + countTokens(m.content), 3);
}

/** The last user message's integers summed into `\boxed{}`; with no integers, its word count. */
export function defaultResponder(body: ChatRequestBody): string {
  const lastUser = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
  const text = lastUser?.content ?? '';
  const ints = text.match(/-?\d+/g);
  const value = ints
    ? ints.reduce((s, d) => s + Number.parseInt(d, 10), 0)
    : text.split(/\s+/).filter(Boolean).length;
  const gist = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return `You asked: "${gist}". The answer is \\boxed{${value}}.`;
}

/** mulberry32: a small seeded PRNG; the same seed gives the same fault sequence. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Control and fault headers must be allowed in preflight so browser pages can send them. */
const ALLOWED_HEADERS = 'authorization, content-type, x-test-fault, http-referer, x-title';

function corsHeaders(req: IncomingMessage): Record<string, string> {
  const requested = req.headers['access-control-request-headers'];
  const headers: Record<string, string> = {
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-allow-methods': 'GET, POST, OPTIONS',
    'access-control-allow-headers': typeof requested === 'string' ? requested : ALLOWED_HEADERS,
    // Retry-After is not a CORS-safelisted response header: without this line a page
    // could not read it.
    'access-control-expose-headers': 'retry-after, x-request-id',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
  // Chrome's Private Network Access preflight, for pages on public origins calling localhost.
  if (req.headers['access-control-request-private-network'] === 'true') {
    headers['access-control-allow-private-network'] = 'true';
  }
  return headers;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toChatBody(v: unknown): ChatRequestBody | undefined {
  if (!isObject(v) || !Array.isArray(v.messages)) return undefined;
  const messages: WireMessage[] = [];
  for (const m of v.messages) {
    if (!isObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string') return undefined;
    messages.push({ role: m.role, content: m.content });
  }
  return { ...(v as ChatRequestBody), messages };
}

/** Writes `data` in `fault.fragmentBytes`-byte pieces; in one piece when that is unset. */
async function writeFragmented(
  res: ServerResponse,
  data: string,
  fault: FaultSpec | undefined,
): Promise<void> {
  const size = fault?.fragmentBytes;
  if (!size || size <= 0) {
    res.write(data);
    return;
  }
  const bytes = Buffer.from(data, 'utf8');
  for (let i = 0; i < bytes.length; i += size) {
    if (res.destroyed) return;
    res.write(bytes.subarray(i, i + size));
    const delay = fault.fragmentDelayMs ?? 0;
    await (delay > 0 ? sleep(delay) : new Promise<void>((resolve) => setImmediate(resolve)));
  }
}

/** Waits until everything written so far has reached the kernel, then drops the connection,
 * so the client sees exactly the chunks sent and then a broken socket. */
async function disconnect(res: ServerResponse): Promise<void> {
  await new Promise<void>((resolve) => res.write('', () => resolve()));
  res.socket?.destroy();
}

function errorBody(message: string, type: string, code: string | null): string {
  return JSON.stringify({ error: { message, type, param: null, code } });
}

export async function startOpenAIServer(options: OpenAIServerOptions = {}): Promise<OpenAIServer> {
  const responder = options.responder ?? defaultResponder;
  const models = options.models ?? ['baton-test-echo', 'baton-test-mini'];
  const chunkChars = options.streamChunkChars ?? 8;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let faults: ServerFaults = {};
  let queue: FaultSpec[] = [];
  let rng = mulberry32(0);
  let counter = 0;

  const setFaults = (next: ServerFaults): void => {
    faults = { ...faults, ...next };
    if (next.once) queue = [...next.once];
    if (next.seed !== undefined) rng = mulberry32(next.seed);
  };
  const reset = (): void => {
    requests.length = 0;
    faults = {};
    queue = [];
    rng = mulberry32(0);
    counter = 0;
  };
  if (options.faults) setFaults(options.faults);

  const pickFault = (req: IncomingMessage): FaultSpec | undefined => {
    const header = req.headers['x-test-fault'];
    if (typeof header === 'string' && header.length > 0) {
      const parsed = parseJson(header);
      if (isObject(parsed)) return parsed as FaultSpec;
    }
    const queued = queue.shift();
    if (queued) return queued;
    const rate = faults.rate ?? 0;
    if (rate > 0) {
      // Always draw twice so the sequence of decisions depends only on the request count.
      const hit = rng() < rate;
      const pool = faults.rateFaults ?? DEFAULT_RATE_FAULTS;
      const choice = pool[Math.floor(rng() * pool.length)];
      if (hit) return choice;
    }
    return undefined;
  };

  /** Answers 401 and returns false when a key is required and the request lacks it. */
  const authorized = (req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): boolean => {
    if (options.apiKey === undefined) return true;
    const auth = req.headers.authorization ?? '';
    if (auth === `Bearer ${options.apiKey}`) return true;
    const presented = auth.replace(/^Bearer\s+/i, '');
    const shown = options.echoKeyInErrors ? presented : `${presented.slice(0, 3)}***`;
    res.writeHead(401, { ...cors, 'content-type': 'application/json' });
    res.end(errorBody(`Incorrect API key provided: ${shown}.`, 'invalid_request_error', 'invalid_api_key'));
    return false;
  };

  const handleChat = async (
    req: IncomingMessage,
    res: ServerResponse,
    raw: unknown,
    fault: FaultSpec | undefined,
    cors: Record<string, string>,
  ): Promise<void> => {
    const latency = (faults.latencyMs ?? 0) + (fault?.latencyMs ?? 0);
    if (latency > 0) await sleep(latency);
    if (res.destroyed) return;
    if (fault?.hang) return;

    if (!authorized(req, res, cors)) return;

    if (fault?.status !== undefined) {
      const headers: Record<string, string> = { ...cors, 'content-type': 'application/json' };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      res.writeHead(fault.status, headers);
      res.end(errorBody(`Injected fault: HTTP ${fault.status}.`, 'server_error', null));
      return;
    }

    const body = toChatBody(raw);
    if (!body) {
      res.writeHead(400, { ...cors, 'content-type': 'application/json' });
      res.end(errorBody('Expected a JSON body with a messages array.', 'invalid_request_error', null));
      return;
    }

    if (body.response_format !== undefined && faults.refuseResponseFormat) {
      res.writeHead(400, { ...cors, 'content-type': 'application/json' });
      res.end(errorBody('response_format is not supported by this server.', 'invalid_request_error', null));
      return;
    }

    counter += 1;
    const id = `chatcmpl-test-${counter}`;
    const model = body.model ?? models[0] ?? 'baton-test-echo';
    const created = 1_700_000_000 + counter;
    const content = responder(body);
    const usage = {
      prompt_tokens: promptTokens(body.messages ?? []),
      completion_tokens: countTokens(content),
      total_tokens: 0,
    };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

    if (!body.stream) {
      res.writeHead(200, { ...cors, 'content-type': 'application/json', 'x-request-id': id });
      if (fault?.disconnectAfterChunks !== undefined) {
        await disconnect(res);
        return;
      }
      let text: string;
      if (fault?.malformed === 'json') text = `{"id":"${id}","choices":[{"message":`;
      else if (fault?.malformed === 'shape') text = JSON.stringify({ id, object: 'chat.completion', model });
      else {
        text = JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          ...(fault?.omitUsage ? {} : { usage }),
        });
      }
      await writeFragmented(res, text, fault);
      res.end();
      if (!fault?.malformed) options.onBilled?.(usage, model);
      return;
    }

    const eol = fault?.crlf ? '\r\n' : '\n';
    const event = (payload: string): string =>
      (fault?.comments ? `: keep-alive${eol}` : '') + `data: ${payload}${eol}${eol}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
      JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      });

    res.writeHead(200, {
      ...cors,
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      'x-request-id': id,
    });
    res.flushHeaders();

    const points = Array.from(content);
    const pieces: string[] = [];
    for (let i = 0; i < points.length; i += chunkChars) pieces.push(points.slice(i, i + chunkChars).join(''));

    const send = async (text: string): Promise<void> => {
      if (fault?.chunkDelayMs) await sleep(fault.chunkDelayMs);
      await writeFragmented(res, text, fault);
    };

    await send(event(chunk({ role: 'assistant', content: '' }, null)));
    let sent = 0;
    for (const piece of pieces) {
      if (fault?.disconnectAfterChunks !== undefined && sent >= fault.disconnectAfterChunks) {
        await disconnect(res);
        return;
      }
      if (fault?.malformed === 'json' && sent === 1) {
        await send(event('{"choices": [ this is not json'));
      }
      await send(event(chunk({ content: piece }, null)));
      sent += 1;
      if (res.destroyed) return;
    }
    if (fault?.disconnectAfterChunks !== undefined) {
      await disconnect(res);
      return;
    }
    await send(event(chunk({}, 'stop')));
    if (body.stream_options?.include_usage && !fault?.omitUsage) {
      await send(
        event(JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })),
      );
    }
    await send(event('[DONE]'));
    res.end();
    if (!fault?.malformed) options.onBilled?.(usage, model);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const text = await readBody(req);
      const raw = parseJson(text);
      const cors = corsHeaders(req);
      const isChat = req.method === 'POST' && url.pathname === '/v1/chat/completions';
      const fault = isChat ? pickFault(req) : undefined;
      requests.push({
        method: req.method ?? '',
        path: url.pathname,
        headers: { ...req.headers },
        body: raw,
        fault,
        receivedAt: Date.now(),
      });

      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors);
        res.end();
        return;
      }
      if (isChat) {
        await handleChat(req, res, raw, fault, cors);
        return;
      }
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        if (!authorized(req, res, cors)) return;
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: models.map((id) => ({
              id,
              object: 'model',
              created: 1_700_000_000,
              owned_by: 'baton-test',
            })),
          }),
        );
        return;
      }
      if (url.pathname === '/__control' && req.method === 'POST') {
        if (isObject(raw)) setFaults(raw as ServerFaults);
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, faults, queued: queue.length }));
        return;
      }
      if (url.pathname === '/__control/reset' && req.method === 'POST') {
        reset();
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true }));
        return;
      }
      if (url.pathname === '/__control/requests' && req.method === 'GET') {
        res.writeHead(200, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify(requests));
        return;
      }
      res.writeHead(404, { ...cors, 'content-type': 'application/json' });
      res.end(errorBody(`No route for ${req.method ?? ''} ${url.pathname}.`, 'invalid_request_error', null));
    })().catch(() => {
      // A client that went away mid-response is expected under fault injection.
      if (!res.destroyed) res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;

  return {
    url,
    baseUrl: `${url}/v1`,
    port,
    requests,
    setFaults,
    reset,
    close: () =>
      new Promise<void>((resolve) => {
        // Hung responses would keep close() waiting forever: end every socket first.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function parseArgs(argv: readonly string[]): OpenAIServerOptions {
  const opts: OpenAIServerOptions = {};
  const faults: ServerFaults = {};
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    const value = argv[i + 1] ?? '';
    const num = Number(value);
    switch (flag) {
      case '--port':
        opts.port = num;
        break;
      case '--host':
        opts.host = value;
        break;
      case '--latency':
        faults.latencyMs = num;
        break;
      case '--fault-rate':
        faults.rate = num;
        break;
      case '--seed':
        faults.seed = num;
        break;
      case '--api-key':
        opts.apiKey = value;
        break;
      case '--design-script':
        opts.responder = designScriptResponder(defaultResponder);
        continue;
      case '--refuse-response-format':
        faults.refuseResponseFormat = true;
        continue;
      default:
        throw new Error(
          `Unknown flag ${flag ?? ''}. Usage: openai-server.ts [--port N] [--host H] [--latency MS] [--fault-rate P] [--seed N] [--api-key K] [--design-script] [--refuse-response-format]`,
        );
    }
    i += 1;
  }
  opts.faults = faults;
  return opts;
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  const server = await startOpenAIServer(parseArgs(process.argv.slice(2)));
  process.stdout.write(
    `OpenAI-compatible test server listening on ${server.url} (base URL ${server.baseUrl})\n`,
  );
  const stop = (): void => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
