import { AGENT_TYPES } from '../core/agents.ts';

/**
 * The design's JSON form (json.ts, `baton.design/1`) as a JSON Schema, for providers that hold
 * their output to a schema (OpenAI-style `response_format: { type: 'json_schema' }`). It is the
 * strict subset those providers accept: every property required, no extra properties, so the
 * optional fields of the JSON form become required ones here (`thinking`, and `debateRoles`, which
 * is `[]` for an agent that is not a debate). `readSchemaReply` turns a reply back into the JSON
 * form `parseDesign` reads; the validator, not the schema, checks the design's rules.
 */
export const DESIGN_SCHEMA_NAME = 'mas_design';

export const DESIGN_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['thinking', 'agents', 'edges'],
  properties: {
    thinking: {
      type: 'string',
      description: 'Why this design fits the question: the sub-problems and how they depend on each other.',
    },
    agents: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'type', 'description', 'input', 'debateRoles'],
        properties: {
          id: { type: 'string', description: 'A short unique id of letters, digits and _ (agent_id).' },
          type: { type: 'string', enum: [...AGENT_TYPES], description: 'The agent type (agent_name).' },
          description: { type: 'string', description: 'What this agent must do (agent_description).' },
          input: {
            type: 'string',
            description:
              "Its input (agent_input); empty means the original question; ${other_id} inserts that agent's output.",
          },
          debateRoles: {
            type: 'array',
            items: { type: 'string' },
            description: 'A DebateAgent: two or more different roles; [] for every other agent.',
          },
        },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['from', 'to'],
        properties: { from: { type: 'string' }, to: { type: 'string' } },
      },
    },
  },
} as const;

/** The request body's `response_format` that asks for a design in the schema above. */
export function designResponseFormat(): Record<string, unknown> {
  return {
    type: 'json_schema',
    json_schema: { name: DESIGN_SCHEMA_NAME, strict: true, schema: DESIGN_JSON_SCHEMA },
  };
}

/**
 * What the orchestrator prompt (src/interop) gains when the design is asked for as JSON: the same
 * channels under their JSON names, so the one prompt serves both outputs.
 */
export const SCHEMA_OUTPUT_NOTE = `Output: instead of the XML format above, write one JSON object with the same channels, as the response format's schema gives it: "thinking" (the thinking block), "agents" (one object per <agent> block: "id" = agent_id, "type" = agent_name, "description" = agent_description, "input" = agent_input, "debateRoles" = debate_roles, [] for agents that do not debate) and "edges" (one {"from", "to"} object per pair). Nothing outside the JSON object.`;

/**
 * A schema-held reply as the JSON form `parseDesign` reads: fenced code is unwrapped and the
 * empty `debateRoles` the schema requires are dropped (they mean "not a debate"). Text that is not
 * a JSON object is returned as it came, so the reader reports it (or reads it as XML, when the
 * server ignored the schema and wrote XML).
 */
export function readSchemaReply(content: string): string {
  const trimmed = content.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  const body = fenced?.[1]?.trim() ?? trimmed;
  if (!body.startsWith('{')) return content;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return body;
  const v = value as Record<string, unknown>;
  if (!Array.isArray(v.agents)) return body;
  const agents = v.agents.map((a: unknown) => {
    if (typeof a !== 'object' || a === null) return a;
    const { debateRoles, ...rest } = a as Record<string, unknown>;
    return Array.isArray(debateRoles) && debateRoles.length === 0 ? rest : { ...rest, debateRoles };
  });
  return JSON.stringify({ ...v, agents });
}
