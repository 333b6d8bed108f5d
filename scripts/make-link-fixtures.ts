/**
 * Writes tests/fixtures/links/links.json: share links made from traces built here, with what
 * each must decode to. `src/share/fixtures.test.ts` decodes them on every test run.
 *
 * Append-only: entries already in the file are kept byte for byte and only missing names are
 * added, because these links stand for links people have already shared, which every future
 * Baton must keep opening. Changing an existing entry would hide exactly the breakage the
 * fixtures exist to catch.
 *
 *   npx tsx scripts/make-link-fixtures.ts
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseTraceJson } from '../src/core/parse-trace.ts';
import { minimalTrace, withTotals } from '../src/core/trace-builders.ts';
import type { ConstructionStep, Trace } from '../src/core/trace.ts';
import { encodeTraceLink, shareUrl } from '../src/share/index.ts';
import { sampleTrace } from '../tests/support/sample-traces.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'tests/fixtures/links/links.json');
const EXAMPLES = join(ROOT, 'public/examples');

export interface LinkFixture {
  name: string;
  link: string;
  expect: { id: string; title: string; agents: number; events: number };
}

const PNG_1X1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** A MasHost construction: policy-chosen ADD steps, a user override, a DELETE and an EXIT. */
function constructionTrace(): Trace {
  const base = sampleTrace({ seed: 301, shape: 'chain', title: 'MasHost construction, four steps' });
  const dist = (pAdd: number) => [
    { action: 'solver', p: pAdd },
    { action: 'critic', p: (1 - pAdd) / 2 },
    { action: 'DELETE', p: 0 },
    { action: 'EXIT', p: (1 - pAdd) / 2 },
  ];
  const steps: ConstructionStep[] = [
    {
      index: 0,
      action: { kind: 'add', role: 'solver', agentId: 'a1', agentType: 'CoTAgent', links: [] },
      roleDistribution: dist(0.62),
      edgeProbabilities: [],
      logProb: -0.478,
      chooser: 'policy',
      intermediateAnswer: '3',
      intermediateCorrect: false,
      actionReward: 0,
    },
    {
      index: 1,
      action: { kind: 'add', role: 'solver', agentId: 'a2', agentType: 'CoTAgent', links: ['a1'] },
      roleDistribution: dist(0.5),
      edgeProbabilities: [{ from: 'a1', p: 0.91 }],
      logProb: -0.787,
      chooser: 'user',
      intermediateAnswer: '4',
      intermediateCorrect: true,
      actionReward: 1,
    },
    {
      index: 2,
      action: { kind: 'add', role: 'critic', agentId: 'a3', agentType: 'SCAgent', links: ['a2'] },
      roleDistribution: dist(0.2),
      edgeProbabilities: [
        { from: 'a1', p: 0.12 },
        { from: 'a2', p: 0.88 },
      ],
      logProb: -1.05,
      chooser: 'policy',
      intermediateAnswer: '4',
      intermediateCorrect: true,
      actionReward: 0.5,
    },
    {
      index: 3,
      action: { kind: 'exit', summarizerId: 'a4' },
      roleDistribution: dist(0.1),
      edgeProbabilities: [],
      logProb: -0.8,
      chooser: 'policy',
      intermediateAnswer: null,
      intermediateCorrect: null,
      actionReward: null,
    },
  ];
  return {
    ...base,
    id: 'fixture-construction',
    designer: { kind: 'policy', checkpoint: 'jpss-step-120', backend: 'webgpu', seed: 7 },
    construction: steps,
  };
}

/** An orchestrator-designed run with a parse warning and text in several scripts. */
function orchestratorTrace(): Trace {
  const base = sampleTrace({ seed: 302, shape: 'wide', title: 'Orchestrator design — 多智能体 · ∑ 🧮' });
  return {
    ...base,
    id: 'fixture-orchestrator',
    task: {
      ...base.task,
      query: `${base.task.query}\nÜbersetzung: «Wie viele?» — 答案是多少？ $\\sum_{i=1}^{n} i^2$`,
    },
    designer: {
      kind: 'orchestrator',
      model: 'Qwen2.5-0.5B-Instruct',
      prompt:
        'Design a multi-agent system for the question. Answer with <thinking>, <agent> and <edge> blocks.',
      rawOutput:
        '<thinking>Four parallel solvers, then a merge.</thinking>\n<agent><agent_id>w1</agent_id>…</agent>',
      parseErrors: ['agent w5: unknown agent_name "MagicAgent"; ignored'],
    },
    design: { ...base.design, thinking: 'Four parallel solvers, then a merge that checks them.' },
  };
}

/** A remote run in which one agent fails and its dependent gets the placeholder. */
function failedTrace(): Trace {
  const base = sampleTrace({ seed: 303, shape: 'chain', title: 'Remote run with a failed agent' });
  const events = base.execution.events.filter(
    (e) => !('agentId' in e) || e.agentId === 'a1' || e.agentId === 'a2',
  );
  const t = events[events.length - 1]?.t ?? 0;
  events.pop();
  return withTotals({
    ...base,
    id: 'fixture-failed',
    execution: {
      backend: {
        kind: 'remote',
        provider: 'openrouter',
        baseUrl: 'https://openrouter.ai/api/v1',
        model: 'gpt-4o-mini',
      },
      status: 'failed',
      startedAt: base.execution.startedAt,
      events: [
        ...events,
        { type: 'agent.start', t, agentId: 'a3', input: 'Use the result of a2' },
        {
          type: 'llm.call',
          t: t + 1,
          agentId: 'a3',
          callId: 'c-err',
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'Use the result of a2' }],
          output: '',
          promptTokens: 6,
          completionTokens: 0,
          tokensEstimated: true,
          latencyMs: 30_000,
          costUsd: 0,
          error: 'HTTP 429: rate limited (after 3 retries)',
        },
        {
          type: 'agent.error',
          t: t + 30_001,
          agentId: 'a3',
          error: 'HTTP 429: rate limited (after 3 retries)',
          placeholder: '[agent a3 failed: no output]',
        },
        { type: 'run.end', t: t + 30_002, status: 'failed' },
      ],
    },
    result: { finalAnswer: null, correct: null },
  });
}

/** An imported MAS-Orchestra case with a diagram, a dataset source and several ground truths. */
function importedTrace(): Trace {
  const base = minimalTrace({
    query: 'Find the number of ordered pairs (x, y) of integers with x^2 + y^2 = 25.',
    groundTruth: '12',
    title: 'Imported MAS-Orchestra case (AIME-style)',
    createdAt: '2026-10-30T08:00:00.000Z',
    id: 'fixture-imported',
    source: { kind: 'dataset', name: 'aime24', item: '7' },
    designer: {
      kind: 'imported',
      tool: 'mas-orchestra',
      orchestrator: 'harmony_grpo_7b',
      subAgentModel: 'gpt-oss-120b',
      trainingStep: 180,
      dom: 'low',
    },
  });
  return {
    ...base,
    task: { ...base.task, groundTruths: ['12', 'twelve'] },
    design: {
      dom: 'low',
      thinking: '<thinking>One careful solver with self-reflection is enough.</thinking>',
      agents: [
        {
          id: 'reflexion_agent_output',
          type: 'ReflexionAgent',
          description: 'Solves reasoning tasks with iterative self-reflection and critique using Reflexion.',
          input: '',
          params: {},
        },
      ],
      edges: [],
    },
    execution: {
      backend: { kind: 'imported', tool: 'mas-orchestra', model: 'gpt-oss-120b' },
      status: 'completed',
      events: [],
    },
    result: { finalAnswer: '12', answerAgent: 'reflexion_agent_output', correct: true },
    diagram: PNG_1X1,
    tags: ['imported', 'aime24'],
  };
}

/** Built here rather than loaded, so the fixtures do not depend on files that may change. */
function fixtureTraces(): { name: string; trace: Trace; trim?: number; asUrl?: boolean }[] {
  const list: { name: string; trace: Trace; trim?: number; asUrl?: boolean }[] = [
    { name: 'cot-simulated', trace: sampleTrace({ seed: 201, shape: 'cot' }) },
    { name: 'sc-vote', trace: sampleTrace({ seed: 202, shape: 'sc' }) },
    { name: 'debate-three-roles', trace: sampleTrace({ seed: 203, shape: 'debate' }), asUrl: true },
    { name: 'reflexion-critic', trace: sampleTrace({ seed: 204, shape: 'reflexion' }) },
    { name: 'chain-four-agents', trace: sampleTrace({ seed: 205, shape: 'chain' }) },
    { name: 'wide-merge', trace: sampleTrace({ seed: 206, shape: 'wide' }) },
    { name: 'mashost-construction', trace: constructionTrace() },
    { name: 'orchestrator-unicode', trace: orchestratorTrace() },
    { name: 'failed-agent-remote', trace: failedTrace() },
    { name: 'imported-with-diagram', trace: importedTrace() },
    {
      name: 'trimmed-long-debate',
      trace: sampleTrace({
        seed: 207,
        shape: 'debate',
        steps: 80,
        title: 'Long debate, trimmed to 300 characters',
      }),
      trim: 300,
    },
    {
      name: 'not-run',
      trace: minimalTrace({
        query: 'What is 2 + 2?',
        groundTruth: '4',
        id: 'fixture-not-run',
        createdAt: '2026-11-01T00:00:00.000Z',
      }),
    },
  ];
  if (existsSync(EXAMPLES)) {
    for (const f of readdirSync(EXAMPLES).sort()) {
      if (!f.endsWith('.json') || f === 'index.json') continue;
      const r = parseTraceJson(readFileSync(join(EXAMPLES, f), 'utf8'));
      if (r.ok) list.push({ name: `example-${f.replace(/\.json$/, '')}`, trace: r.value });
    }
  }
  return list;
}

function main(): void {
  const existing: LinkFixture[] = existsSync(OUT)
    ? (JSON.parse(readFileSync(OUT, 'utf8')) as LinkFixture[])
    : [];
  const have = new Set(existing.map((f) => f.name));
  const added: LinkFixture[] = [];
  for (const { name, trace, trim, asUrl } of fixtureTraces()) {
    if (have.has(name)) continue;
    const link = encodeTraceLink(trace, trim === undefined ? {} : { trimOutputsTo: trim });
    added.push({
      name,
      link: asUrl ? shareUrl('https://baton.example/app/', link) : link.fragment,
      expect: {
        id: trace.id,
        title: trace.title,
        agents: trace.design.agents.length,
        events: trace.execution.events.length,
      },
    });
  }
  writeFileSync(OUT, JSON.stringify([...existing, ...added], null, 2) + '\n');
  console.log(
    `${OUT}: kept ${existing.length}, added ${added.length} (${added.map((a) => a.name).join(', ') || 'none'})`,
  );
}

main();
