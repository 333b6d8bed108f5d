/**
 * Scripted orchestrator replies for the OpenAI-wire test server: a conversation that starts with
 * the orchestrator prompt ("You design a multi-agent system …") gets, as its n-th reply (n = the
 * assistant messages already in it, i.e. the repair turn), the n-th design of the script; every
 * other request gets the fallback responder. The default script is five broken designs, each
 * broken one way (a missing edge, a cycle, an unknown agent type, two sinks, an undeclared id),
 * then a good one. A request with `response_format: { type: 'json_schema' }` gets the same design
 * in the JSON form that schema describes (src/design/json-schema.ts). Deterministic: the reply is a
 * function of the request.
 *
 *   tsx tests/server/openai-server.ts --port 8787 --design-script
 */
import { parseDesignXml } from '../../src/design/xml.ts';
import type { ChatRequestBody, Responder } from './openai-server.ts';

export const ORCHESTRATOR_PROMPT_START = 'You design a multi-agent system';

interface A {
  id: string;
  name: string;
  input: string;
  description?: string;
}

export function designXml(agents: readonly A[], edges: readonly [string, string][], thinking = ''): string {
  const blocks = agents.map(
    (a) => `<agent>
    <agent_id>${a.id}</agent_id>
    <agent_name>${a.name}</agent_name>
    <agent_description>${a.description ?? `Work on ${a.id}.`}</agent_description>
    <required_arguments>
        <agent_input>${a.input}</agent_input>
    </required_arguments>
</agent>`,
  );
  return `<thinking>${thinking}</thinking>
${blocks.join('\n')}
<edge>
${edges.map(([f, t]) => `    <from>${f}</from><to>${t}</to>`).join('\n')}
</edge>`;
}

const france = { id: 'france', name: 'CoTAgent', input: 'Find France 2023 GDP growth.' };
const germany = { id: 'germany', name: 'CoTAgent', input: 'Find Germany 2023 GDP growth.' };
const compare = { id: 'compare', name: 'CoTAgent', input: 'Compare ${france} with ${germany}.' };

/** Each broken design with the rule numbers (src/design/validate.ts) its problems must include. */
export const BROKEN_DESIGNS: readonly { what: string; xml: string; rules: number[] }[] = [
  {
    what: 'a missing edge',
    xml: designXml(
      [france, germany, compare],
      [['france', 'compare']],
      'Research each country, then compare.',
    ),
    rules: [9],
  },
  {
    what: 'a cycle',
    xml: designXml(
      [france, { ...germany, input: 'Check ${compare}.' }, compare],
      [
        ['france', 'compare'],
        ['germany', 'compare'],
        ['compare', 'germany'],
      ],
    ),
    rules: [6],
  },
  {
    what: 'an unknown agent type',
    xml: designXml(
      [{ ...france, name: 'GoogleSearchAgent' }, germany, compare],
      [
        ['france', 'compare'],
        ['germany', 'compare'],
      ],
    ),
    rules: [2],
  },
  {
    what: 'two sinks',
    xml: designXml(
      [france, germany, { ...compare, input: 'Compare ${france} with the rest.' }],
      [['france', 'compare']],
    ),
    rules: [4],
  },
  {
    what: 'a reference to an undeclared id',
    xml: designXml(
      [france, germany, { ...compare, input: 'Compare ${france}, ${germany} and ${italy}.' }],
      [
        ['france', 'compare'],
        ['germany', 'compare'],
        ['italy', 'compare'],
      ],
    ),
    rules: [10],
  },
];

export const GOOD_DESIGN = designXml(
  [france, germany, compare],
  [
    ['france', 'compare'],
    ['germany', 'compare'],
  ],
  'Two independent look-ups in parallel, then one comparison.',
);

export const DEFAULT_DESIGN_SCRIPT: readonly string[] = [...BROKEN_DESIGNS.map((b) => b.xml), GOOD_DESIGN];

export const isOrchestratorRequest = (body: ChatRequestBody): boolean =>
  (body.messages ?? []).some((m) => m.role === 'system' && m.content.startsWith(ORCHESTRATOR_PROMPT_START));

/** A scripted XML design in the JSON schema's form (every field present, `debateRoles` [] when none). */
export function schemaJson(xml: string): string {
  const raw = parseDesignXml(xml).design;
  if (!raw) return xml;
  return JSON.stringify({
    thinking: raw.thinking ?? '',
    agents: raw.agents.map((a) => ({
      id: a.id,
      type: a.type,
      description: a.description,
      input: a.input,
      debateRoles: a.debateRoles ?? [],
    })),
    edges: raw.edges,
  });
}

/** The responder: the script for orchestrator conversations, `fallback` for everything else. */
export function designScriptResponder(
  fallback: Responder,
  script: readonly string[] = DEFAULT_DESIGN_SCRIPT,
): Responder {
  return (body) => {
    if (!isOrchestratorRequest(body)) return fallback(body);
    const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
    const xml = script[Math.min(turn, script.length - 1)] ?? '';
    return body.response_format?.type === 'json_schema' ? schemaJson(xml) : xml;
  };
}
