import { createRng, type Rng } from '../../src/core/rng.ts';
import { minimalTrace, withTotals } from '../../src/core/trace-builders.ts';
import type { Agent, ChatMessage, Edge, Trace, TraceEvent } from '../../src/core/trace.ts';

/**
 * Seeded, realistic-looking traces for the share-link tests, fixtures, fuzzing and benchmark:
 * the executor's shape (system + user messages per call, outputs that later agents quote) with
 * prose that has the redundancy of real model output. Pure: the same seed gives the same trace.
 */

const SYSTEM_COT =
  'You are a careful problem solver. Think step by step, show your reasoning, and give the final answer in \\boxed{}.';
const SYSTEM_CRITIC =
  'You are a strict critic. Check the reasoning below line by line. Reply "ACCEPT" if it is correct, otherwise explain the first error.';
const SYSTEM_DEBATE = (role: string): string =>
  `You are the ${role} in a debate. Read the other participants' latest answers, point out mistakes, and give your own final answer in \\boxed{}.`;

const OPENERS = [
  'Let me restate the problem in my own words.',
  'We need to find the requested quantity from the relations given.',
  'First, list every quantity that the question defines.',
  'Let us define variables for each unknown quantity.',
  'I will work through the dependencies one at a time.',
];
const STEPS = [
  'From the statement, {a} equals {n} times {b}, so {a} = {n} × {b}.',
  'Substituting the value we found, {b} = {m}, which gives {a} = {p}.',
  'The total for {a} is the sum of its parts: {m} + {n} = {q}.',
  'We are told {b} is {m} more than {c}, so {c} = {b} − {m}.',
  'Check: {a} should be consistent with the earlier equation, and {p} satisfies it.',
  'Note that {c} depends only on {b}, which is already known.',
  'Multiplying out, {n} × {m} = {r}, so the intermediate value is {r}.',
  'This is a modular arithmetic step: {r} mod 5 = {s}.',
  'Therefore the number of {a} is {p}.',
  'Now combine the two partial results to get the answer for {c}.',
];
const CLOSERS = [
  'So the final answer is \\boxed{{ans}}.',
  'Hence the answer is \\boxed{{ans}}.',
  'The answer is \\boxed{{ans}}.',
];
const THINGS = [
  "each Drawstring Backpack's Journal",
  "each Hunting Backpack's Loose Leaf Paper",
  "each Messenger Bag's Notebook",
  "each School Daypack's Pencil Case",
  "each Hiking Backpack's Water Bottle",
  "each Laptop Bag's Charger",
];

function fill(template: string, rng: Rng, ans: number): string {
  return template
    .replace(/\{a\}/g, rng.pick(THINGS))
    .replace(/\{b\}/g, rng.pick(THINGS))
    .replace(/\{c\}/g, rng.pick(THINGS))
    .replace(/\{n\}/g, String(2 + rng.int(12)))
    .replace(/\{m\}/g, String(1 + rng.int(20)))
    .replace(/\{p\}/g, String(rng.int(200)))
    .replace(/\{q\}/g, String(rng.int(60)))
    .replace(/\{r\}/g, String(rng.int(400)))
    .replace(/\{s\}/g, String(rng.int(5)))
    .replace(/\{ans\}/g, String(ans));
}

function reasoning(rng: Rng, steps: number, ans: number): string {
  const lines = [rng.pick(OPENERS)];
  for (let i = 0; i < steps; i++) lines.push(fill(rng.pick(STEPS), rng, ans));
  lines.push(fill(rng.pick(CLOSERS), rng, ans));
  return lines.join('\n');
}

function question(rng: Rng, parts: number): string {
  const lines: string[] = [];
  for (let i = 0; i < parts; i++) {
    lines.push(
      `The number of ${rng.pick(THINGS).replace('each ', '')} equals ${2 + rng.int(12)} times as much as ${rng.pick(THINGS)}.`,
    );
  }
  lines.push(`How many ${rng.pick(THINGS).replace('each ', '')} are there? Give the answer mod 5.`);
  return lines.join(' ');
}

interface Builder {
  events: TraceEvent[];
  t: number;
  calls: number;
}

function call(
  b: Builder,
  rng: Rng,
  agentId: string,
  label: string,
  messages: ChatMessage[],
  output: string,
  model: string,
): void {
  const promptTokens = Math.round(messages.reduce((s, m) => s + m.content.length, 0) / 4);
  const completionTokens = Math.round(output.length / 4);
  const latencyMs = 400 + rng.int(3000);
  b.events.push({
    type: 'llm.call',
    t: b.t,
    agentId,
    callId: `c${++b.calls}`,
    label,
    model,
    messages,
    output,
    promptTokens,
    completionTokens,
    latencyMs,
    costUsd: Math.round((promptTokens * 0.15 + completionTokens * 0.6) * 1e3) / 1e9,
  });
  b.t += latencyMs + rng.int(20);
}

export interface SampleTraceOptions {
  seed: number;
  /** Which executor pattern the design uses. */
  shape: 'cot' | 'sc' | 'debate' | 'reflexion' | 'chain' | 'wide';
  /** Reasoning steps per output; larger means longer outputs. */
  steps?: number;
  title?: string;
}

/** A complete, executed trace for one design shape. */
export function sampleTrace(o: SampleTraceOptions): Trace {
  const rng = createRng(o.seed);
  const steps = o.steps ?? 6;
  const ans = rng.int(5);
  const query = question(rng, 3 + rng.int(4));
  const model = 'gpt-4o-mini';
  const agents: Agent[] = [];
  const edges: Edge[] = [];
  const b: Builder = { events: [], t: 0, calls: 0 };
  const outputs = new Map<string, string>();

  const add = (
    id: string,
    type: Agent['type'],
    description: string,
    deps: string[],
    params: Agent['params'] = {},
  ) => {
    const input = deps.length === 0 ? '' : deps.map((d) => `Use the result of ${d}: \${${d}}`).join('\n');
    agents.push({ id, type, description, input, params });
    for (const d of deps) edges.push({ from: d, to: id });
  };
  const run = (a: Agent) => {
    const context = a.input.replace(/\$\{([^}]+)\}/g, (_, d: string) => outputs.get(d) ?? '');
    const user = context === '' ? query : `${query}\n\n${context}\n\nTask: ${a.description}`;
    b.events.push({ type: 'agent.start', t: b.t, agentId: a.id, input: user });
    let out = '';
    if (a.type === 'SCAgent') {
      const samples = a.params.samples ?? 5;
      const answers: string[] = [];
      for (let i = 0; i < samples; i++) {
        out = reasoning(rng, steps, rng.next() < 0.7 ? ans : rng.int(5));
        answers.push(out);
        call(
          b,
          rng,
          a.id,
          `sample ${i + 1}/${samples}`,
          [
            { role: 'system', content: SYSTEM_COT },
            { role: 'user', content: user },
          ],
          out,
          model,
        );
      }
      b.events.push({
        type: 'agent.note',
        t: b.t,
        agentId: a.id,
        kind: 'vote',
        text: `majority: ${ans} (${samples} samples)`,
      });
      out = answers[0] ?? out;
    } else if (a.type === 'DebateAgent') {
      const roles = a.params.debateRoles ?? ['Proponent', 'Skeptic'];
      const last = new Map<string, string>();
      for (let round = 1; round <= (a.params.maxRounds ?? 2); round++) {
        for (const role of roles) {
          const others = [...last]
            .filter(([r]) => r !== role)
            .map(([r, v]) => `${r} said:\n${v}`)
            .join('\n\n');
          out = reasoning(rng, steps, ans);
          call(
            b,
            rng,
            a.id,
            `${role} round ${round}`,
            [
              { role: 'system', content: SYSTEM_DEBATE(role) },
              { role: 'user', content: others === '' ? user : `${user}\n\n${others}` },
            ],
            out,
            model,
          );
          last.set(role, out);
        }
      }
    } else if (a.type === 'ReflexionAgent') {
      out = reasoning(rng, steps, rng.int(5));
      call(
        b,
        rng,
        a.id,
        'initial answer',
        [
          { role: 'system', content: SYSTEM_COT },
          { role: 'user', content: user },
        ],
        out,
        model,
      );
      for (let round = 1; round <= 2; round++) {
        const verdict =
          round === 2
            ? 'ACCEPT'
            : `The step "${out.split('\n')[2] ?? ''}" does not follow from the statement.`;
        call(
          b,
          rng,
          a.id,
          `critic round ${round}`,
          [
            { role: 'system', content: SYSTEM_CRITIC },
            { role: 'user', content: `${user}\n\nAnswer to check:\n${out}` },
          ],
          verdict,
          model,
        );
        b.events.push({ type: 'agent.note', t: b.t, agentId: a.id, kind: 'critic', text: verdict });
        if (verdict === 'ACCEPT') break;
        out = reasoning(rng, steps, ans);
        call(
          b,
          rng,
          a.id,
          `refine round ${round}`,
          [
            { role: 'system', content: SYSTEM_COT },
            { role: 'user', content: `${user}\n\nCritique:\n${verdict}` },
          ],
          out,
          model,
        );
      }
    } else {
      out = reasoning(rng, steps, ans);
      call(
        b,
        rng,
        a.id,
        'answer',
        [
          { role: 'system', content: SYSTEM_COT },
          { role: 'user', content: user },
        ],
        out,
        model,
      );
    }
    outputs.set(a.id, out);
    b.events.push({ type: 'agent.end', t: b.t, agentId: a.id, output: out });
  };

  if (o.shape === 'cot') add('solver', 'CoTAgent', 'Solve the problem directly.', []);
  if (o.shape === 'sc') add('sc', 'SCAgent', 'Sample five solutions and vote.', [], { samples: 5 });
  if (o.shape === 'debate') {
    add('parse', 'CoTAgent', 'Extract every equation from the question.', []);
    add('debate', 'DebateAgent', 'Debate the solution of the equations.', ['parse'], {
      debateRoles: ['Mathematician', 'Skeptic', 'Checker'],
      maxRounds: 2,
    });
  }
  if (o.shape === 'reflexion') add('reflect', 'ReflexionAgent', 'Solve, then critique and refine.', []);
  if (o.shape === 'chain') {
    add('a1', 'CoTAgent', 'Find the first unknown.', []);
    add('a2', 'CoTAgent', 'Find the second unknown from the first.', ['a1']);
    add('a3', 'SCAgent', 'Compute the final quantity.', ['a2'], { samples: 3 });
    add('a4', 'ExtractAgent', 'Extract the final answer mod 5.', ['a3']);
  }
  if (o.shape === 'wide') {
    for (let i = 1; i <= 4; i++) add(`w${i}`, 'CoTAgent', `Solve sub-question ${i}.`, []);
    add('merge', 'ReflexionAgent', 'Combine the partial results and check them.', ['w1', 'w2', 'w3', 'w4']);
  }

  for (const a of agents) run(a);
  b.events.push({ type: 'run.end', t: b.t, status: 'completed' });
  const sink = agents[agents.length - 1];
  const base = minimalTrace({
    query,
    groundTruth: String(ans),
    title: o.title ?? `${o.shape} sample ${o.seed}`,
    createdAt: '2026-11-01T12:00:00.000Z',
    id: `sample-${o.shape}-${o.seed}`,
    source: { kind: 'masbench', axis: 'depth', value: 2 + (o.seed % 8) },
    designer: { kind: 'manual' },
  });
  return withTotals({
    ...base,
    design: { dom: agents.length > 1 ? 'high' : 'low', agents, edges },
    execution: {
      backend: { kind: 'simulated', seed: o.seed, model },
      status: 'completed',
      startedAt: '2026-11-01T12:00:01.000Z',
      events: b.events,
    },
    result: { finalAnswer: String(ans), answerAgent: sink?.id, correct: true },
    tags: ['sample', o.shape],
  });
}

/** One of each shape, the set the tests, fuzzing and the benchmark start from. */
export function sampleTraces(): Trace[] {
  const shapes: SampleTraceOptions['shape'][] = ['cot', 'sc', 'debate', 'reflexion', 'chain', 'wide'];
  return shapes.map((shape, i) => sampleTrace({ seed: 101 + i, shape }));
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Seeded base64 text that does not compress, as PNG data does not. */
export function incompressibleBase64(chars: number, seed: number): string {
  const rng = createRng(seed);
  return Array.from({ length: chars }, () => BASE64.charAt(rng.int(64))).join('');
}

/**
 * An imported MAS-Orchestra slide whose page drew a design but published no code for it: a
 * diagram of `diagramChars` base64 characters, no agents, no direct answer, and reasoning of
 * `thinkingChars` characters (trimmable text).
 */
export function diagramOnlyTrace(o: { diagramChars: number; thinkingChars?: number; seed?: number }): Trace {
  const seed = o.seed ?? 1;
  const base = minimalTrace({
    query: 'The number of each bakery’s muffin equals 12. How many muffins do both shops have?',
    groundTruth: '24',
    id: `diagram-only-${seed}`,
    source: { kind: 'masbench', axis: 'depth', value: 2, taskId: 'row 1' },
    designer: { kind: 'imported', tool: 'MAS-Orchestra', subAgentModel: 'gpt-oss-120b', dom: 'low' },
  });
  return {
    ...base,
    design: {
      dom: 'low',
      agents: [],
      edges: [],
      ...(o.thinkingChars ? { thinking: incompressibleBase64(o.thinkingChars, seed + 1) } : {}),
    },
    execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    result: { finalAnswer: '24', correct: true },
    diagram: `data:image/png;base64,${incompressibleBase64(o.diagramChars, seed)}`,
    tags: ['mas-orchestra', 'case-page', 'design-in-diagram-only'],
  };
}
