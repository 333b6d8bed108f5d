/**
 * Fuzz of the provider orchestrator (src/executor/provider-designer.ts): random provider replies —
 * truncated and mutated XML, huge outputs, HTML error pages, wrong JSON, broken event streams —
 * served by a fake `fetch` to the real client and design loop. Each must end in a valid design or a
 * failure with a message (an attempt's problems or its call error), with a designer record the trace
 * schema accepts; anything thrown is a finding. Every other case asks for the design's JSON schema
 * (`output: 'json-schema'`), and a third of the designs are served in that schema's JSON form, so
 * truncated, mutated and wrong JSON designs go through the schema reader too. Seeded: the same seed
 * gives the same replies.
 */
import { TraceSchema } from '../../src/core/trace.ts';
import { minimalTrace } from '../../src/core/trace-builders.ts';
import { createLlmClient } from '../../src/executor/llm/index.ts';
import { designWithProvider } from '../../src/executor/provider-designer.ts';
import { orchestratorMessages } from '../../src/interop/index.ts';
import { DEFAULT_DESIGN_SCRIPT, schemaJson } from '../server/design-script.ts';

export type ReplyKind =
  'truncated-xml' | 'mutated-xml' | 'huge' | 'html' | 'wrong-json' | 'broken-sse' | 'good';

interface Reply {
  kind: ReplyKind;
  status: number;
  contentType: string;
  body: string;
}

export interface ProviderFuzzFinding {
  case: number;
  kind: ReplyKind;
  problem: string;
}

export interface ProviderFuzzSummary {
  cases: number;
  designed: number;
  refused: number;
  byKind: Record<string, number>;
  findings: ProviderFuzzFinding[];
}

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

const completion = (content: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    id: 'chatcmpl-fuzz',
    object: 'chat.completion',
    model: 'fuzz-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
    ...extra,
  });

const sse = (pieces: readonly string[], done = true): string =>
  pieces
    .map(
      (p) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', model: 'fuzz-model', choices: [{ index: 0, delta: { content: p }, finish_reason: null }] })}\n\n`,
    )
    .join('') + (done ? 'data: [DONE]\n\n' : '');

const NOISE = [
  '<',
  '>',
  '</agent>',
  '<agent_id>',
  '${',
  '}',
  '"',
  '\u0000',
  '\ud800',
  '&amp;',
  '<edge>',
  '\n',
  'é',
  '🙂',
];

export function fuzzReply(rng: () => number): Reply {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)]!;
  const xml = pick(DEFAULT_DESIGN_SCRIPT);
  const design = rng() < 1 / 3 ? schemaJson(xml) : xml;
  const r = rng();
  if (r < 0.25) {
    const cut = design.slice(0, Math.floor(rng() * design.length));
    return rng() < 0.5
      ? { kind: 'truncated-xml', status: 200, contentType: 'application/json', body: completion(cut) }
      : {
          kind: 'truncated-xml',
          status: 200,
          contentType: 'text/event-stream',
          body: sse(cut.match(/[\s\S]{1,9}/g) ?? []),
        };
  }
  if (r < 0.45) {
    const chars = Array.from(design);
    for (let i = 0, n = 1 + Math.floor(rng() * 12); i < n; i++) {
      const at = Math.floor(rng() * chars.length);
      if (rng() < 0.5) chars.splice(at, 1 + Math.floor(rng() * 20));
      else chars.splice(at, 0, pick(NOISE));
    }
    return {
      kind: 'mutated-xml',
      status: 200,
      contentType: 'application/json',
      body: completion(chars.join('')),
    };
  }
  if (r < 0.47) {
    const unit = rng() < 0.5 ? design : '<agent><agent_id>x</agent_id>';
    const body = completion(unit.repeat(Math.ceil((200_000 + rng() * 3_000_000) / unit.length)));
    return { kind: 'huge', status: 200, contentType: 'application/json', body };
  }
  if (r < 0.62) {
    const status = pick([200, 400, 404, 413, 502, 503, 520]);
    const body = `<!DOCTYPE html><html><head><title>${status} Bad Gateway</title></head><body><h1>Error</h1><p>${'x'.repeat(Math.floor(rng() * 3000))}</p></body></html>`;
    return {
      kind: 'html',
      status,
      contentType: 'text/html',
      body: rng() < 0.2 ? body.slice(0, Math.floor(rng() * body.length)) : body,
    };
  }
  if (r < 0.82) {
    const bodies = [
      '{"choices": [',
      '{}',
      '[]',
      'null',
      '"a string"',
      JSON.stringify({ choices: [] }),
      JSON.stringify({ choices: [{ message: { content: 42 } }] }),
      JSON.stringify({ choices: [{ message: null }] }),
      completion(null),
      completion({ nested: design }),
      completion(design, { usage: { prompt_tokens: -5, completion_tokens: 'many' } }),
      JSON.stringify({ error: { message: 'Rate limit', type: 'rate_limit' } }),
      `{"design": ${JSON.stringify(design)}}`,
      completion(
        JSON.stringify({ format: 'baton.design/1', dom: 'high', agents: [{ id: 1 }], edges: 'none' }),
      ),
      completion(`{"format":"baton.design/1","dom":"high","agents":[`),
    ];
    return {
      kind: 'wrong-json',
      status: pick([200, 200, 200, 400, 500]),
      contentType: 'application/json',
      body: pick(bodies),
    };
  }
  if (r < 0.95) {
    const pieces = design.match(/[\s\S]{1,7}/g) ?? [];
    const variants = [
      sse(pieces, false),
      sse(pieces).replace(/data: \{/g, (m) => (rng() < 0.1 ? 'data: {{' : m)),
      `data: not json\n\n${sse(pieces)}`,
      sse(pieces.slice(0, Math.floor(rng() * pieces.length)), rng() < 0.5),
      `event: error\ndata: {"error":{"message":"overloaded"}}\n\n`,
      ': keep-alive\n\n'.repeat(5),
      `data: ${JSON.stringify({ choices: [{ delta: { content: 7 } }] })}\n\ndata: [DONE]\n\n`,
    ];
    return { kind: 'broken-sse', status: 200, contentType: 'text/event-stream', body: pick(variants) };
  }
  return { kind: 'good', status: 200, contentType: 'application/json', body: completion(design) };
}

/** Runs `cases` random replies through the client and the design loop. */
export async function runProviderFuzz(o: { seed: number; cases: number }): Promise<ProviderFuzzSummary> {
  const rng = mulberry32(o.seed ^ 0x5eed);
  const s: ProviderFuzzSummary = { cases: o.cases, designed: 0, refused: 0, byKind: {}, findings: [] };
  for (let i = 0; i < o.cases; i++) {
    const reply = fuzzReply(rng);
    s.byKind[reply.kind] = (s.byKind[reply.kind] ?? 0) + 1;
    const fetch = (): Promise<Response> =>
      Promise.resolve(
        new Response(reply.body, { status: reply.status, headers: { 'content-type': reply.contentType } }),
      );
    try {
      const client = createLlmClient({
        baseUrl: 'http://fuzz.invalid/v1',
        apiKey: 'sk-fuzz-key-000',
        fetch,
        retry: { maxAttempts: 1 },
        sleep: async () => {},
        timeoutMs: 5_000,
      });
      const r = await designWithProvider({
        client,
        model: 'fuzz-model',
        provider: 'fuzz',
        query: 'q',
        dom: 'auto',
        messages: orchestratorMessages,
        repairTurns: 0,
        output: i % 2 === 0 ? 'xml' : 'json-schema',
      });
      const trace = {
        ...minimalTrace({ query: 'q', designer: r.designer }),
        ...(r.design ? { design: r.design } : {}),
      };
      if (!TraceSchema.safeParse(trace).success) {
        s.findings.push({
          case: i,
          kind: reply.kind,
          problem: 'the designer record does not fit the trace schema',
        });
      } else if (r.design) s.designed += 1;
      else {
        const said = [r.failure ?? '', ...r.errors, ...(r.designer.attempts ?? []).map((a) => a.error ?? '')];
        if (!r.failure || said.join('').trim() === '')
          s.findings.push({ case: i, kind: reply.kind, problem: 'no design and no message' });
        else s.refused += 1;
      }
    } catch (e) {
      s.findings.push({
        case: i,
        kind: reply.kind,
        problem: `threw: ${e instanceof Error ? e.message : String(e)}`,
      });
    }
  }
  return s;
}
