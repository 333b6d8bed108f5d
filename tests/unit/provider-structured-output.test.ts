/**
 * The provider orchestrator's structured output, against the real local OpenAI-wire test server:
 * the design asked for in its JSON schema (`response_format`), read, repaired and recorded as
 * `output: 'json-schema'`; `auto` by preset; a server that refuses `response_format` (HTTP 400)
 * gets the same turn again as XML, and the record says so.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../src/core/trace-builders.ts';
import { TraceSchema } from '../../src/core/trace.ts';
import { DESIGN_JSON_SCHEMA, SCHEMA_OUTPUT_NOTE } from '../../src/design/json-schema.ts';
import { Budget, createLlmClient } from '../../src/executor/llm/index.ts';
import { resolveDesignOutput } from '../../src/executor/provider-design-read.ts';
import { designWithProvider, type ProviderDesignOptions } from '../../src/executor/provider-designer.ts';
import { orchestratorMessages } from '../../src/interop/index.ts';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder, schemaJson } from '../server/design-script.ts';
import { defaultResponder, startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';

const MODEL = 'gpt-4.1-mini';
const PRICES = { [MODEL]: { inputPerMTok: 0.4, outputPerMTok: 1.6 } };
const QUERY = 'Compare the GDP growth of France and Germany in 2023';

let server: OpenAIServer;
let bill = { tokens: 0, usd: 0, calls: 0 };

beforeAll(async () => {
  server = await startOpenAIServer({
    responder: designScriptResponder(defaultResponder, [
      BROKEN_DESIGNS[0]!.xml,
      BROKEN_DESIGNS[1]!.xml,
      GOOD_DESIGN,
    ]),
    onBilled: (u) => {
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * 0.4 + u.completion_tokens * 1.6) / 1e6;
      bill.calls += 1;
    },
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
  bill = { tokens: 0, usd: 0, calls: 0 };
});

const design = (over: Partial<ProviderDesignOptions> = {}) =>
  designWithProvider({
    client: createLlmClient({
      baseUrl: server.baseUrl,
      prices: PRICES,
      sleep: async () => {},
      timeoutMs: 2_000,
    }),
    model: MODEL,
    provider: '127.0.0.1',
    query: QUERY,
    dom: 'auto',
    messages: orchestratorMessages,
    repairTurns: 2,
    ...over,
  });

interface Body {
  messages: { role: string; content: string }[];
  response_format?: { type: string; json_schema: { name: string; strict: boolean; schema: unknown } };
}
const bodies = () =>
  server.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => r.body as Body);

describe('the design in its JSON schema', () => {
  it('asks with response_format and the one prompt plus a note, reads JSON replies, repairs and records json-schema', async () => {
    const r = await design({ output: 'json-schema' });
    expect(r.failure).toBeUndefined();
    expect(r.design?.agents.map((a) => a.id)).toEqual(['france', 'germany', 'compare']);
    const d = r.designer;
    expect(d.output).toBe('json-schema');
    expect(d.outputFallback).toBeUndefined();
    expect(d.usedAttempt).toBe(2);
    // Every attempt was written as JSON, and the broken ones were read and checked as designs.
    expect(d.attempts?.map((a) => a.rawOutput)).toEqual([
      schemaJson(BROKEN_DESIGNS[0]!.xml),
      schemaJson(BROKEN_DESIGNS[1]!.xml),
      schemaJson(GOOD_DESIGN),
    ]);
    expect(d.attempts?.[0]?.problems.some((p) => p.startsWith('rule 9:'))).toBe(true);
    expect(d.attempts?.[1]?.problems.some((p) => p.startsWith('rule 6:'))).toBe(true);
    const sent = bodies();
    expect(sent).toHaveLength(3);
    for (const b of sent) {
      expect(b.response_format?.type).toBe('json_schema');
      expect(b.response_format?.json_schema.strict).toBe(true);
      expect(b.response_format?.json_schema.schema).toEqual(DESIGN_JSON_SCHEMA);
    }
    const hub = orchestratorMessages(QUERY, 'high');
    expect(sent[0]?.messages[0]?.content).toBe(`${hub[0]!.content}\n\n${SCHEMA_OUTPUT_NOTE}`);
    expect(sent[0]?.messages[1]).toEqual(hub[1]);
    // The server's bill is the record's cost.
    expect(d.usage?.calls).toBe(bill.calls);
    expect((d.usage?.promptTokens ?? 0) + (d.usage?.completionTokens ?? 0)).toBe(bill.tokens);
    expect(d.usage?.costUsd).toBeCloseTo(bill.usd, 12);
    const trace = { ...minimalTrace({ query: QUERY, designer: d }), design: r.design! };
    expect(TraceSchema.safeParse(trace).success).toBe(true);
  });

  it('XML (the default) sends no response_format and records xml', async () => {
    const r = await design();
    expect(r.designer.output).toBe('xml');
    expect(r.designer.attempts?.[2]?.rawOutput).toBe(GOOD_DESIGN);
    expect(bodies().every((b) => b.response_format === undefined)).toBe(true);
  });

  it('auto asks for the schema from presets known to take it and XML from any other endpoint', async () => {
    expect(resolveDesignOutput('auto', 'ollama')).toBe('json-schema');
    expect(resolveDesignOutput('auto', 'lmstudio')).toBe('json-schema');
    expect(resolveDesignOutput('auto', 'llamacpp')).toBe('json-schema');
    expect(resolveDesignOutput('auto', 'deepseek')).toBe('xml');
    expect(resolveDesignOutput('auto', 'custom')).toBe('xml');
    expect(resolveDesignOutput('auto')).toBe('xml');
    expect(resolveDesignOutput('json-schema', 'custom')).toBe('json-schema');
    const r = await design({ output: 'auto', presetId: 'lmstudio', repairTurns: 0 });
    expect(r.designer.output).toBe('json-schema');
    expect(bodies()[0]?.response_format?.type).toBe('json_schema');
  });
});

describe('a server that refuses response_format', () => {
  it('gets the same turn again as XML; the refused call is an attempt and the record says why', async () => {
    server.setFaults({ refuseResponseFormat: true });
    const budget = new Budget({ maxTokens: 1_000_000 });
    const r = await design({
      output: 'json-schema',
      repairTurns: 2,
      budget,
      client: createLlmClient({
        baseUrl: server.baseUrl,
        prices: PRICES,
        budget,
        sleep: async () => {},
        timeoutMs: 2_000,
      }),
    });
    const d = r.designer;
    expect(r.failure).toBeUndefined();
    expect(d.output).toBe('xml');
    expect(d.outputFallback).toMatch(/refused response_format/);
    expect(d.outputFallback).toMatch(/HTTP 400/);
    // One refused call, then the full XML loop with its repair turns intact.
    expect(d.attempts).toHaveLength(4);
    expect(d.attempts?.[0]).toMatchObject({ valid: false, promptTokens: 0, completionTokens: 0 });
    expect(d.attempts?.[0]?.error).toMatch(/^http: .*HTTP 400/);
    expect(d.attempts?.[3]).toMatchObject({ valid: true, rawOutput: GOOD_DESIGN });
    expect(d.usedAttempt).toBe(3);
    const sent = bodies();
    expect(sent.map((b) => b.response_format?.type ?? null)).toEqual(['json_schema', null, null, null]);
    expect(sent[1]?.messages).toEqual(orchestratorMessages(QUERY, 'high'));
    // The refusal spent nothing: the budget's spend is the server's bill.
    expect(bill.calls).toBe(3);
    expect(budget.spent.tokens).toBe(bill.tokens);
    expect(
      TraceSchema.safeParse({ ...minimalTrace({ query: QUERY, designer: d }), design: r.design! }).success,
    ).toBe(true);
  });
});
