/**
 * OTLP/JSON exports as agent frameworks write them, for the OTLP importer's tests and fuzzing.
 * Written by hand after the attribute sets OpenLLMetry (traceloop.* and the flattened
 * gen_ai.prompt.{i}.* names) and the current OpenTelemetry GenAI conventions
 * (gen_ai.operation.name, gen_ai.input.messages) emit; ids, times and texts are made up.
 */

type Value = string | number | boolean;
const kv = (key: string, v: Value): { key: string; value: Record<string, unknown> } => ({
  key,
  value:
    typeof v === 'string'
      ? { stringValue: v }
      : typeof v === 'boolean'
        ? { boolValue: v }
        : Number.isInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v },
});
const attrs = (o: Record<string, Value>): { key: string; value: Record<string, unknown> }[] =>
  Object.entries(o).map(([k, v]) => kv(k, v));

export const FOREIGN_TRACE_ID = '5b8efff798038103d269b633813fc60c';
/** 2026-11-01T10:00:00Z in unix nanoseconds. */
const T0 = 1_793_527_200_000_000_000n;
const at = (ms: number): string => (T0 + BigInt(ms) * 1_000_000n).toString();

/**
 * A two-agent crew: `researcher` (OpenLLMetry-style spans) delegates to `writer` (current GenAI
 * conventions); the researcher also calls a search tool. One attribute (`llm.is_streaming`) and
 * one resource attribute (`host.name`) have no Baton field and must come back as notes.
 */
export function foreignCrewExport(): unknown {
  return {
    resourceSpans: [
      {
        resource: { attributes: attrs({ 'service.name': 'crew-demo', 'host.name': 'lab-7' }) },
        scopeSpans: [
          {
            scope: { name: 'opentelemetry.instrumentation.crewai', version: '0.40.0' },
            spans: [
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000001',
                name: 'crew.workflow',
                kind: 1,
                startTimeUnixNano: at(0),
                endTimeUnixNano: at(5200),
                attributes: attrs({
                  'traceloop.span.kind': 'workflow',
                  'traceloop.entity.name': 'crew',
                  'input.value': 'Write a two-sentence summary of why the sky is blue.',
                  'output.value': 'Sunlight scatters off air molecules; blue scatters most.',
                }),
                status: { code: 1 },
              },
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000002',
                parentSpanId: '1000000000000001',
                name: 'researcher.agent',
                kind: 1,
                startTimeUnixNano: at(10),
                endTimeUnixNano: at(5100),
                attributes: attrs({
                  'traceloop.span.kind': 'agent',
                  'traceloop.entity.name': 'researcher',
                }),
              },
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000003',
                parentSpanId: '1000000000000002',
                name: 'openai.chat',
                kind: 3,
                startTimeUnixNano: at(20),
                endTimeUnixNano: at(1220),
                attributes: attrs({
                  'gen_ai.system': 'openai',
                  'llm.request.type': 'chat',
                  'gen_ai.request.model': 'gpt-4o-mini',
                  'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
                  'gen_ai.usage.prompt_tokens': 41,
                  'gen_ai.usage.completion_tokens': 87,
                  'llm.usage.total_tokens': 128,
                  'gen_ai.prompt.0.role': 'system',
                  'gen_ai.prompt.0.content': 'You research facts.',
                  'gen_ai.prompt.1.role': 'user',
                  'gen_ai.prompt.1.content': 'Why is the sky blue?',
                  'gen_ai.completion.0.role': 'assistant',
                  'gen_ai.completion.0.content': 'Rayleigh scattering: shorter wavelengths scatter more.',
                  'llm.is_streaming': false,
                }),
              },
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000004',
                parentSpanId: '1000000000000002',
                name: 'web_search.tool',
                kind: 1,
                startTimeUnixNano: at(1300),
                endTimeUnixNano: at(1700),
                attributes: attrs({ 'traceloop.span.kind': 'tool', 'tool.query': 'rayleigh scattering' }),
              },
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000005',
                parentSpanId: '1000000000000002',
                name: 'invoke_agent writer',
                kind: 1,
                startTimeUnixNano: at(1800),
                endTimeUnixNano: at(5000),
                attributes: attrs({
                  'gen_ai.operation.name': 'invoke_agent',
                  'gen_ai.agent.name': 'writer',
                  'gen_ai.agent.id': 'writer',
                  'gen_ai.agent.description': 'Writes the final summary.',
                }),
                events: [
                  {
                    timeUnixNano: at(1900),
                    name: 'handoff',
                    attributes: attrs({ from: 'researcher' }),
                  },
                ],
              },
              {
                traceId: FOREIGN_TRACE_ID,
                spanId: '1000000000000006',
                parentSpanId: '1000000000000005',
                name: 'chat gpt-4o',
                kind: 3,
                startTimeUnixNano: at(2000),
                endTimeUnixNano: at(4900),
                attributes: [
                  ...attrs({
                    'gen_ai.operation.name': 'chat',
                    'gen_ai.provider.name': 'openai',
                    'gen_ai.request.model': 'gpt-4o',
                    'gen_ai.usage.input_tokens': 120,
                    'gen_ai.usage.output_tokens': 33,
                  }),
                  {
                    key: 'gen_ai.input.messages',
                    value: {
                      stringValue: JSON.stringify([
                        {
                          role: 'user',
                          parts: [{ type: 'text', content: 'Summarise: Rayleigh scattering…' }],
                        },
                      ]),
                    },
                  },
                  {
                    key: 'gen_ai.output.messages',
                    value: {
                      stringValue: JSON.stringify([
                        {
                          role: 'assistant',
                          parts: [
                            {
                              type: 'text',
                              content: 'Sunlight scatters off air molecules; blue scatters most.',
                            },
                          ],
                          finish_reason: 'stop',
                        },
                      ]),
                    },
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
}
