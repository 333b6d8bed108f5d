import { z } from 'zod';
import type { RawDesign } from './raw.ts';

/**
 * Baton's JSON design form (`baton.design/1`). It mirrors the XML channels one to one; agent types
 * stay strings here so the validator, not the schema, explains a wrong type.
 */
export const DESIGN_JSON_FORMAT = 'baton.design/1';

const str = z.string().max(1_000_000);
const RawAgentSchema = z.object({
  id: z.string().max(200),
  type: z.string().max(200),
  description: str.default(''),
  input: str.default(''),
  role: z.string().max(200).optional(),
  debateRoles: z.array(z.string().max(1000)).max(64).optional(),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const DesignJsonSchema = z.object({
  format: z.literal(DESIGN_JSON_FORMAT).optional(),
  dom: z.enum(['low', 'high']).optional(),
  thinking: str.optional(),
  agents: z.array(RawAgentSchema).max(5000),
  edges: z
    .array(z.object({ from: z.string().max(200), to: z.string().max(200) }))
    .max(50_000)
    .default([]),
  directAnswer: str.optional(),
});

export interface JsonParseOutput {
  design: RawDesign | null;
  problems: string[];
}

export function parseDesignJson(text: string, dom?: 'low' | 'high'): JsonParseOutput {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { design: null, problems: [`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`] };
  }
  // A whole Baton trace is accepted too: its design is what is meant.
  if (typeof value === 'object' && value !== null && 'design' in value && 'format' in value) {
    value = (value as { design: unknown }).design;
  }
  const parsed = DesignJsonSchema.safeParse(value);
  if (!parsed.success) {
    return {
      design: null,
      problems: parsed.error.issues
        .slice(0, 20)
        .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`),
    };
  }
  const d = parsed.data;
  const design: RawDesign = {
    dom: dom ?? d.dom ?? (d.agents.length <= 1 && d.edges.length === 0 ? 'low' : 'high'),
    agents: d.agents.map((a) => ({
      id: a.id,
      type: a.type,
      description: a.description,
      input: a.input,
      ...(a.role !== undefined ? { role: a.role } : {}),
      ...(a.debateRoles !== undefined ? { debateRoles: a.debateRoles } : {}),
      ...(a.params !== undefined ? { params: a.params } : {}),
    })),
    edges: d.edges,
  };
  if (d.thinking !== undefined) design.thinking = d.thinking;
  if (d.directAnswer !== undefined) design.directAnswer = d.directAnswer;
  return { design, problems: [] };
}

export function serializeDesignJson(design: RawDesign): string {
  return JSON.stringify({ format: DESIGN_JSON_FORMAT, ...design }, null, 2) + '\n';
}
