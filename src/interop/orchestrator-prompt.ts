import type { ChatMessage } from '../core/trace.ts';

/**
 * The orchestrator's prompt: what an orchestrator model is asked before it writes a MAS design for
 * a query. It describes Baton's agent archive and MAS-Orchestra's XML design channels
 * (docs/design-format.md), so what the model writes is what `parseDesign` reads. The verl dataset
 * export (verl.ts) puts it in every row's `prompt`; the in-tab orchestrator is meant to use the same
 * builder, so a model trained on the dataset sees at inference exactly the prompt it was trained
 * on. Change the text only with a new `ORCHESTRATOR_PROMPT_VERSION`.
 */

export const ORCHESTRATOR_PROMPT_VERSION = 'baton.orchestrator-prompt/1';

/** Degree of MAS: low = answer directly or delegate to at most one agent; high = any DAG. */
export type DegreeOfMas = 'low' | 'high';

const ARCHIVE = `Agents you can use (agent_name):
- CoTAgent: one call that reasons step by step and answers.
- SCAgent: self-consistency; several samples of the same reasoning (default 5, set <samples>N</samples>), then a majority vote on the normalised answer.
- DebateAgent: two or more roles argue over rounds, each seeing the others' last answers, then a final decision. Needs <debate_roles>["Role A", "Role B"]</debate_roles> with at least two different roles.
- ReflexionAgent: an answer, then critic rounds (at most 5) that stop when the critic accepts.
- CEOAgent: a MAS-TTS discussion; a CEO decides each turn whether to continue, recruits 1-4 experts (solver, critics, evaluator), sets the direction and each expert's token budget, until they agree.`;

const FORMAT = `Write your answer in this format and nothing else:
<thinking>Why this design fits the question: which sub-problems there are and how they depend on each other.</thinking>
<agent>
    <agent_id>a short unique id of letters, digits and _</agent_id>
    <agent_name>one of the agent names above</agent_name>
    <agent_description>what this agent must do</agent_description>
    <required_arguments>
        <agent_input>its input; empty means the original question; \${other_id} inserts that agent's output</agent_input>
    </required_arguments>
</agent>
(one <agent> block per agent)
<edge>
    <from>agent_id</from><to>agent_id</to>
    (one <from>/<to> pair per edge)
</edge>`;

const RULES: Record<DegreeOfMas, string> = {
  high: `Rules: the agents and edges form a directed acyclic graph with at least one start and exactly one sink, whose output is the final answer; every agent lies on a path from a start to the sink; no self-loops or duplicate edges; \${X} appears in the input of Y exactly when there is an edge X -> Y. Split the question into sub-problems where that helps, run independent ones in parallel, and check the steps that are easy to get wrong.`,
  low: `Rules: use at most one agent and no edges (leave <edge></edge> empty). If the question is easy, you may use no agent and put the answer in \\boxed{} after the thinking block.`,
};

/** The system message: the archive, the output format and the rules for the given degree. */
export function orchestratorSystemPrompt(dom: DegreeOfMas = 'high'): string {
  return [
    "You design a multi-agent system (MAS) that answers a question. You do not answer the question yourself; the agents you design do, and the final agent's output is the answer.",
    ARCHIVE,
    FORMAT,
    RULES[dom],
    'The final answer must end with \\boxed{…}; when the question asks for several quantities, give them in the order asked, separated by commas.',
  ].join('\n\n');
}

/** The chat messages an orchestrator gets for one query. */
export function orchestratorMessages(query: string, dom: DegreeOfMas = 'high'): ChatMessage[] {
  return [
    { role: 'system', content: orchestratorSystemPrompt(dom) },
    { role: 'user', content: `Question:\n${query}\n\nDesign the MAS for this question.` },
  ];
}
