import { normaliseAgentType } from '../core/agents.ts';
import type { Problem } from '../core/result.ts';
import { AgentParamsSchema, type Design } from '../core/trace.ts';
import type { RawDesign } from '../design/raw.ts';
import { renameReferences } from '../design/references.ts';
import { asciiId, toDesign, validateDesign, type Violation } from '../design/validate.ts';

/**
 * Turns a design recovered from another tool into a trace design. An imported design is a record
 * of what happened, so a design that breaks a rule is kept as written (the viewer re-validates it
 * and shows every violation) and is marked with the tag `invalid-design` plus one
 * `design-rule-<n>` tag per broken rule. Only what the trace schema cannot hold is changed, and
 * each change is reported as a warning: ids outside the id alphabet are rewritten, unknown agent
 * types become CoTAgent with the original name kept in `params.importedType`, and parameters the
 * schema would reject are dropped. A renamed agent keeps its place: edges, `${…}` references and
 * the answer agent (through `renamed`) follow it.
 */
export interface FinishedDesign {
  design: Design;
  violations: Violation[];
  tags: string[];
  warnings: Problem[];
  /** Old id → id used in the trace, for ids that had to be rewritten. */
  renamed: Map<string, string>;
}

const ID_RE = /^[A-Za-z0-9_.:-]{1,200}$/;
const MAX_ROLES = 16;
const MAX_SHORT = 10_000;

export const INVALID_DESIGN_TAG = 'invalid-design';

export function ruleTag(rule: number): string {
  return `design-rule-${rule}`;
}

function safeId(id: string, fallback: string): string {
  const cleaned = asciiId(id).slice(0, 200);
  return cleaned === '' || /^_+$/.test(cleaned) ? fallback : cleaned;
}

export function finishDesign(raw: RawDesign, options: { validate?: boolean } = {}): FinishedDesign {
  const warnings: Problem[] = [];
  const violations = options.validate === false ? [] : validateDesign(raw);
  for (const v of violations) {
    warnings.push({
      code: 'E_DESIGN_INVALID',
      message: `rule ${v.rule}: ${v.message}`,
      ...(v.agents ? { path: `design.agents(${v.agents.slice(0, 8).join(', ')})` } : {}),
    });
  }

  const withTypes: RawDesign = {
    ...raw,
    agents: raw.agents.map((a) =>
      normaliseAgentType(a.type) === null
        ? { ...a, params: { ...(a.params ?? {}), importedType: a.type.slice(0, 200) } }
        : a,
    ),
  };
  const design = toDesign(withTypes);

  // Ids: the trace schema only holds ids in its alphabet; rewrite the rest consistently.
  const renamed = new Map<string, string>();
  const taken = new Set(design.agents.map((a) => a.id).filter((id) => ID_RE.test(id)));
  design.agents.forEach((agent, i) => {
    if (ID_RE.test(agent.id)) return;
    let next = safeId(agent.id, `agent_${i + 1}`);
    for (let n = 2; taken.has(next); n++) next = `${safeId(agent.id, `agent_${i + 1}`).slice(0, 190)}_${n}`;
    taken.add(next);
    if (!renamed.has(agent.id)) renamed.set(agent.id, next);
    warnings.push({
      code: 'E_IMPORT_ITEM',
      message: `Agent id ${JSON.stringify(agent.id.slice(0, 80))} uses characters a trace id cannot hold; it is "${next}" here.`,
    });
    agent.id = next;
  });
  design.edges = design.edges.map((e) => ({
    from: ID_RE.test(e.from) ? e.from : (renamed.get(e.from) ?? safeId(e.from, 'unknown')),
    to: ID_RE.test(e.to) ? e.to : (renamed.get(e.to) ?? safeId(e.to, 'unknown')),
  }));
  // References follow their agents, so a renamed agent is still the input of the ones it feeds.
  if (renamed.size > 0) {
    for (const agent of design.agents) agent.input = renameReferences(agent.input, renamed);
  }

  for (const agent of design.agents) {
    const params: Design['agents'][number]['params'] = {};
    for (const [key, value] of Object.entries(agent.params)) {
      let v: unknown = value;
      if (key === 'debateRoles' && Array.isArray(value)) {
        const roles = value.map((r) => String(r).slice(0, MAX_SHORT));
        if (roles.length > MAX_ROLES) {
          warnings.push({
            code: 'E_IMPORT_ITEM',
            message: `Agent "${agent.id}" has ${roles.length} debate roles; the first ${MAX_ROLES} are kept.`,
          });
        }
        v = roles.slice(0, MAX_ROLES);
      }
      if (AgentParamsSchema.safeParse({ [key]: v }).success) params[key] = v as string;
      else {
        warnings.push({
          code: 'E_IMPORT_ITEM',
          message: `Agent "${agent.id}": parameter "${key.slice(0, 80)}" has a value Baton cannot hold; it was left out.`,
        });
      }
    }
    agent.params = params;
  }

  const tags =
    violations.length > 0
      ? [
          INVALID_DESIGN_TAG,
          ...[...new Set(violations.map((v) => v.rule))].sort((a, b) => a - b).map(ruleTag),
        ]
      : [];
  return { design, violations, tags, warnings, renamed };
}
