/**
 * A design as read from a file, before validation: agent types are still strings, and anything may
 * be wrong. The validator turns a `RawDesign` into a `Design` or into a list of violations.
 */
export interface RawAgent {
  id: string;
  /** `agent_name` as written (e.g. "CoTAgent"); matched case-insensitively. */
  type: string;
  description: string;
  /** Empty = the original question; `${ID}` = agent ID's output. */
  input: string;
  role?: string;
  debateRoles?: string[];
  /** Other parameters, passed through (numbers, strings, booleans, string lists). */
  params?: Record<string, unknown>;
}

export interface RawDesign {
  dom: 'low' | 'high';
  thinking?: string;
  agents: RawAgent[];
  edges: { from: string; to: string }[];
  directAnswer?: string;
}
