import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  startOpenAIServer,
  type ChatRequestBody,
  type OpenAIServer,
} from '../../../tests/server/openai-server.ts';
import { runDesign } from '../run.ts';
import { designOf, eventsOf, testBackend, traceFor } from '../test-helpers.ts';
import { DEFAULT_POOL, roleInstruction } from '../../policy/index.ts';
import { SYSTEM, roleLine } from './prompts.ts';
import { answerKey, majorityVote } from './vote.ts';
import { parseCeoDecision, parseExperts } from './ceo.ts';

/** The test server's reply is decided by `reply`, swapped per test. */
let reply: (body: ChatRequestBody) => string = () => 'The answer is \\boxed{0}.';
let server: OpenAIServer;

beforeAll(async () => {
  server = await startOpenAIServer({ responder: (body) => reply(body) });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const systemOf = (body: ChatRequestBody): string => body.messages?.[0]?.content ?? '';
const lastUser = (body: ChatRequestBody): string =>
  [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';

type AgentTypeOf = Parameters<typeof designOf>[0][0]['type'];

/** One agent on the whole task; `description` '' (the default here) sends the archive's plain prompts. */
async function runOne(type: AgentTypeOf, params = {}, description = '') {
  const design = designOf([{ id: 'A', type, params }]);
  return runDesign({
    trace: traceFor('What is 2 + 3?', '5'),
    design: { ...design, agents: design.agents.map((a) => ({ ...a, description })) },
    backend: testBackend(server.baseUrl),
  });
}

describe('vote', () => {
  it('reads answers with the answer checker rules and votes by plurality, first seen on ties', () => {
    expect(answerKey('so \\boxed{ 7 }.')).toBe('7');
    expect(answerKey('The answer is 12.')).toBe('12');
    expect(answerKey('nothing here')).toBeNull();
    const v = majorityVote(['\\boxed{3}', '\\boxed{7}', 'answer: 7', '\\boxed{3}', 'none']);
    expect(v.winner).toBe('3');
    expect(v.index).toBe(0);
    expect(v.counts).toEqual([
      { answer: '3', votes: 2 },
      { answer: '7', votes: 2 },
    ]);
  });
});

describe('CoTAgent', () => {
  it('makes one call and answers with its output', async () => {
    reply = () => 'Two plus three is \\boxed{5}.';
    const trace = await runOne('CoTAgent');
    expect(eventsOf(trace, 'llm.call')).toHaveLength(1);
    expect(trace.result.finalAnswer).toBe('Two plus three is \\boxed{5}.');
    expect(trace.result.correct).toBe(true);
  });
});

describe('SCAgent', () => {
  it('draws the configured number of samples in parallel and records the vote', async () => {
    let n = 0;
    const answers = [4, 5, 5, 6, 5, 4, 9];
    reply = () => `Sample says \\boxed{${answers[n++ % answers.length]}}.`;
    const trace = await runOne('SCAgent', { samples: 7 });
    const calls = eventsOf(trace, 'llm.call');
    expect(calls.map((c) => c.label).sort()).toEqual(
      Array.from({ length: 7 }, (_, i) => `sample ${i + 1}/7`).sort(),
    );
    const vote = eventsOf(trace, 'agent.note').find((e) => e.kind === 'vote');
    expect(vote?.text).toContain('Majority 5 with 3/7 votes');
    expect(answerKey(trace.result.finalAnswer ?? '')).toBe('5');
    // Samples run in parallel: every sample was sent before the first one came back.
    const firstBack = Math.min(...calls.map((c) => c.t + c.latencyMs));
    expect(calls.every((c) => c.t <= firstBack)).toBe(true);
  });

  it('defaults to five samples', async () => {
    reply = () => '\\boxed{5}';
    const trace = await runOne('SCAgent');
    expect(eventsOf(trace, 'llm.call')).toHaveLength(5);
  });
});

describe('ReflexionAgent', () => {
  it('stops at the first round the critic accepts', async () => {
    let critiques = 0;
    let solves = 0;
    reply = (body) => {
      if (systemOf(body) === SYSTEM.critic) return ++critiques < 3 ? 'REJECT\nThe sum is wrong.' : 'ACCEPT';
      return `Attempt ${++solves}: \\boxed{${solves + 2}}`;
    };
    const trace = await runOne('ReflexionAgent');
    const labels = eventsOf(trace, 'llm.call').map((c) => c.label);
    expect(labels).toEqual([
      'initial answer',
      'critic round 1',
      'revision 1',
      'critic round 2',
      'revision 2',
      'critic round 3',
    ]);
    const verdicts = eventsOf(trace, 'agent.note').filter((e) => e.kind === 'verdict');
    expect(verdicts.map((v) => v.text)).toEqual([
      'Round 1: the critic rejected the answer.',
      'Round 2: the critic rejected the answer.',
      'Round 3: the critic accepted the answer.',
    ]);
    expect(trace.result.finalAnswer).toBe('Attempt 3: \\boxed{5}');
    // The revision sees the critique.
    const revision = eventsOf(trace, 'llm.call').find((c) => c.label === 'revision 1');
    expect(revision?.messages.at(-1)?.content).toContain('The sum is wrong.');
  });

  it('gives up after maxRounds critic rounds', async () => {
    reply = (body) => (systemOf(body) === SYSTEM.critic ? 'REJECT' : '\\boxed{1}');
    const trace = await runOne('ReflexionAgent', { maxRounds: 2 });
    expect(eventsOf(trace, 'llm.call').filter((c) => c.label?.startsWith('critic'))).toHaveLength(2);
    expect(trace.execution.status).toBe('completed');
  });
});

describe('DebateAgent', () => {
  it('runs rounds where each role sees the others’ previous answers, then decides', async () => {
    reply = (body) => {
      if (systemOf(body) === SYSTEM.judge) return 'The debaters agree: \\boxed{5}';
      const role = /you argue as: (\w+)/.exec(systemOf(body))?.[1] ?? '?';
      const round = (body.messages ?? []).length > 2 ? 2 : 1;
      return `${role} in round ${round}: \\boxed{5}`;
    };
    const trace = await runOne('DebateAgent', { debateRoles: ['Alice', 'Bob', 'Carol'], maxRounds: 3 });
    const calls = eventsOf(trace, 'llm.call');
    expect(calls).toHaveLength(3 * 3 + 1);
    const bobRound2 = calls.find((c) => c.label === 'debate round 2 · Bob');
    const shown = bobRound2?.messages.at(-1)?.content ?? '';
    expect(shown).toContain('Alice in round 1');
    expect(shown).toContain('Carol in round 1');
    expect(shown).not.toContain('Bob in round 1');
    expect(bobRound2?.messages.find((m) => m.role === 'assistant')?.content).toBe(
      'Bob in round 1: \\boxed{5}',
    );
    const carolRound3 = calls.find((c) => c.label === 'debate round 3 · Carol');
    expect(carolRound3?.messages.at(-1)?.content).toContain('Alice in round 2');
    // Roles of one round run in parallel; rounds follow each other.
    const round = (r: number) => calls.filter((c) => c.label?.startsWith(`debate round ${r}`));
    const r1End = Math.min(...round(1).map((c) => c.t + c.latencyMs));
    expect(round(1).every((c) => c.t <= r1End)).toBe(true);
    const r1Last = Math.max(...round(1).map((c) => c.t + c.latencyMs));
    expect(round(2).every((c) => c.t >= r1Last - 1)).toBe(true);
    expect(calls.at(-1)?.label).toBe('final decision');
    expect(trace.result.finalAnswer).toBe('The debaters agree: \\boxed{5}');
  });

  it('falls back to two default roles with a note when the design gives fewer than two', async () => {
    reply = () => '\\boxed{5}';
    const trace = await runOne('DebateAgent', { debateRoles: ['Solo'] });
    expect(eventsOf(trace, 'agent.note').some((n) => n.kind === 'roles')).toBe(true);
    expect(eventsOf(trace, 'llm.call')).toHaveLength(2 * 2 + 1);
  });

  it('runs a repeated role once and says so', async () => {
    reply = () => '\\boxed{5}';
    const trace = await runOne('DebateAgent', { debateRoles: ['Ann', 'Ann', 'Bo'], maxRounds: 1 });
    const notes = eventsOf(trace, 'agent.note').filter((n) => n.kind === 'roles');
    expect(notes.map((n) => n.text)).toEqual(['Repeated debate roles run once each: Ann, Bo.']);
    expect(eventsOf(trace, 'llm.call').map((c) => c.label)).toEqual([
      'debate round 1 · Ann',
      'debate round 1 · Bo',
      'final decision',
    ]);
  });
});

describe('CEOAgent', () => {
  it('reads CEO decisions with zod, falls back on bad JSON, and stops when the CEO says stop', async () => {
    let ceoTurns = 0;
    reply = (body) => {
      const sys = systemOf(body);
      if (sys === SYSTEM.ceo) {
        ceoTurns += 1;
        if (ceoTurns === 1) return 'Let us continue with two experts!';
        return '```json\n{"decision": "stop", "recruit": 2, "direction": "wrap up", "token_budget": 300}\n```';
      }
      if (sys === SYSTEM.recruiter) return '1. Ada: arithmetic\n2. Grace: checking';
      if (sys === SYSTEM.evaluator) return 'Final: \\boxed{5}';
      if (sys.startsWith(SYSTEM.critic)) return 'REJECT\nCheck the addition.';
      return 'Solver: \\boxed{5}';
    };
    const trace = await runOne('CEOAgent');
    const labels = eventsOf(trace, 'llm.call').map((c) => c.label);
    expect(labels).toEqual([
      'CEO turn 1',
      'recruit turn 1',
      'solver turn 1 · Ada',
      'critic turn 1 · Grace',
      'CEO turn 2',
      'evaluator',
    ]);
    const notes = eventsOf(trace, 'agent.note');
    expect(notes.find((n) => n.kind === 'ceo-parse-error')?.text).toContain('Turn 1');
    const decisions = notes.filter((n) => n.kind === 'ceo-decision').map((n) => n.text);
    expect(decisions[0]).toMatch(/^Turn 1: continue; recruit 2/);
    expect(decisions[1]).toMatch(/^Turn 2: stop; recruit 2; 300 tokens/);
    expect(trace.result.finalAnswer).toBe('Final: \\boxed{5}');
    // The second CEO turn sees the first turn's reviews.
    const ceo2 = eventsOf(trace, 'llm.call').find((c) => c.label === 'CEO turn 2');
    expect(ceo2?.messages.at(-1)?.content).toContain('Grace: REJECT');
  });

  it('ends the discussion when every reviewer accepts, within the turn limit', async () => {
    reply = (body) => {
      const sys = systemOf(body);
      if (sys === SYSTEM.ceo)
        return '{"decision":"continue","recruit":3,"direction":"go","token_budget":200}';
      if (sys === SYSTEM.recruiter) return 'Ann: x\nBen: y\nCal: z';
      if (sys.startsWith(SYSTEM.critic)) return 'ACCEPT';
      return '\\boxed{5}';
    };
    const trace = await runOne('CEOAgent', { maxRounds: 3 });
    const calls = eventsOf(trace, 'llm.call');
    expect(calls.filter((c) => c.label?.startsWith('critic'))).toHaveLength(2);
    expect(calls.filter((c) => c.label?.startsWith('CEO'))).toHaveLength(1);
    expect(eventsOf(trace, 'agent.note').some((n) => n.kind === 'agreement')).toBe(true);
    // The CEO's token budget becomes the experts' max tokens.
    const solver = server.requests.find((r) =>
      (r.body as ChatRequestBody | undefined)?.messages?.[0]?.content.includes('You are Ann.'),
    );
    expect((solver?.body as ChatRequestBody).max_tokens).toBe(200);
    expect(lastUser(solver?.body as ChatRequestBody)).toContain('Direction from the CEO: go');
  });

  it('parses decisions and expert lists defensively', () => {
    expect(parseCeoDecision('{"decision":"stop","recruit":9,"direction":"x","token_budget":1}').ok).toBe(
      false,
    );
    expect(parseCeoDecision('{"decision":"stop"').ok).toBe(false);
    expect(parseExperts('- **Ada**: math\nnoise\nBob: logic', 3)).toEqual(['Ada', 'Bob', 'Expert 3']);
  });
});

describe('WebSearchAgent, ExtractAgent, SummarizerAgent', () => {
  it('web search says it is unavailable and answers with one call', async () => {
    reply = () => '\\boxed{5}';
    const trace = await runOne('WebSearchAgent');
    expect(eventsOf(trace, 'agent.note')[0]?.text).toContain('Web search is not available in Baton');
    expect(eventsOf(trace, 'llm.call')).toHaveLength(1);
  });

  it('extract and summariser make one call each with their own prompts', async () => {
    reply = () => '\\boxed{5}';
    for (const [type, system] of [
      ['ExtractAgent', SYSTEM.extractor],
      ['SummarizerAgent', SYSTEM.summarizer],
    ] as const) {
      const trace = await runOne(type);
      const calls = eventsOf(trace, 'llm.call');
      expect(calls).toHaveLength(1);
      expect(calls[0]?.messages[0]?.content).toBe(system);
    }
  });
});

describe('role instruction', () => {
  /** Replies every archive agent can read: CEO JSON, expert names, ACCEPT for critics, else an answer. */
  const cooperative = (body: ChatRequestBody): string => {
    const sys = systemOf(body);
    if (sys.startsWith(SYSTEM.ceo))
      return '{"decision":"continue","recruit":2,"direction":"go","token_budget":200}';
    if (sys.startsWith(SYSTEM.recruiter)) return 'Ann: x\nBen: y';
    if (sys.startsWith(SYSTEM.critic)) return 'ACCEPT';
    return '\\boxed{5}';
  };
  const types: AgentTypeOf[] = [
    'CoTAgent',
    'SCAgent',
    'ReflexionAgent',
    'DebateAgent',
    'CEOAgent',
    'WebSearchAgent',
    'ExtractAgent',
    'SummarizerAgent',
  ];
  const planner = DEFAULT_POOL.roles.find((r) => r.name === 'Planner');
  if (!planner) throw new Error('the default pool has no Planner');
  const instruction = roleInstruction(planner);

  it.each(types)('%s sends the role instruction in the system message of every call', async (type) => {
    reply = cooperative;
    const trace = await runOne(type, {}, instruction);
    const sent = server.requests.map((r) => r.body as ChatRequestBody).filter((b) => b.messages);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent).toHaveLength(eventsOf(trace, 'llm.call').length);
    for (const body of sent) {
      const sys = body.messages?.filter((m) => m.role === 'system') ?? [];
      expect(sys).toHaveLength(1);
      expect(body.messages?.[0]?.role).toBe('system');
      const content = sys[0]?.content ?? '';
      expect(content).toContain(instruction);
      // The role is appended to the archive's prompt, in the wording for what the call does.
      const head = content.slice(0, content.lastIndexOf('\n\n'));
      expect(Object.values(SYSTEM).some((p) => head.startsWith(p))).toBe(true);
      // The input stays verbatim in the user message; the role is not repeated there.
      const users = body.messages?.filter((m) => m.role === 'user') ?? [];
      expect(users.some((m) => m.content.includes(instruction))).toBe(false);
    }
    expect(trace.execution.status).toBe('completed');
  });

  it('tells critics the role of the work they review and the CEO the role of its team', async () => {
    reply = cooperative;
    const reflexion = await runOne('ReflexionAgent', {}, instruction);
    const critic = eventsOf(reflexion, 'llm.call').find((c) => c.label === 'critic round 1');
    expect(critic?.messages[0]?.content).toBe(
      `${SYSTEM.critic}\n\nThe work under review was done in this role: ${instruction}`,
    );
    const first = eventsOf(reflexion, 'llm.call').find((c) => c.label === 'initial answer');
    expect(first?.messages[0]?.content).toBe(`${SYSTEM.solver}\n\nYour role in this team: ${instruction}`);
    server.reset();
    const ceo = await runOne('CEOAgent', {}, instruction);
    const turn = eventsOf(ceo, 'llm.call').find((c) => c.label === 'CEO turn 1');
    expect(turn?.messages[0]?.content).toBe(
      `${SYSTEM.ceo}\n\nYour team's role in the larger system: ${instruction}`,
    );
  });

  it('sends the plain prompt for an empty or blank description', async () => {
    reply = cooperative;
    for (const description of ['', '  \n ']) {
      server.reset();
      const trace = await runOne('ReflexionAgent', {}, description);
      const [answer, critic] = eventsOf(trace, 'llm.call');
      expect(answer?.messages[0]?.content).toBe(SYSTEM.solver);
      expect(critic?.messages[0]?.content).toBe(SYSTEM.critic);
    }
    expect(roleLine(' ', 'solve')).toBeNull();
  });

  it('passes a description that is not an instruction as it is (MAS-Orchestra designs)', async () => {
    reply = cooperative;
    const trace = await runOne('CoTAgent', {}, 'Solves sub-task 1');
    expect(eventsOf(trace, 'llm.call')[0]?.messages[0]?.content).toBe(
      `${SYSTEM.solver}\n\nYour role in this team: Solves sub-task 1`,
    );
  });

  it('keeps secrets in a description out of the trace', async () => {
    reply = cooperative;
    const secret = 'sk-test-role-0123456789';
    const design = designOf([{ id: 'A', type: 'CoTAgent' }]);
    const trace = await runDesign({
      trace: traceFor('What is 2 + 3?', '5'),
      design: {
        ...design,
        agents: design.agents.map((a) => ({ ...a, description: `Planner; key ${secret}` })),
      },
      backend: testBackend(server.baseUrl),
      secrets: [secret],
    });
    const [call] = eventsOf(trace, 'llm.call');
    expect(call?.messages[0]?.content).toContain('Your role in this team: Planner; key');
    expect(JSON.stringify(trace.execution)).not.toContain(secret);
  });
});
