import { describe, expect, it } from 'vitest';
import type { ConstructionStep, Trace, TraceEvent } from '../core/trace.ts';
import { minimalTrace } from '../core/trace-builders.ts';
import { buildReplay, edgeId, replayStateAt } from './replay.ts';

const step = (
  index: number,
  action: ConstructionStep['action'],
  edgeP: [string, number][] = [],
): ConstructionStep => ({
  index,
  action,
  roleDistribution: [
    { action: 'Solver', p: 0.6 },
    { action: 'EXIT', p: 0.4 },
  ],
  edgeProbabilities: edgeP.map(([from, p]) => ({ from, p })),
  logProb: -0.5,
  chooser: 'policy',
});

function sampleTrace(): Trace {
  const t = minimalTrace({ query: 'What is 2+2?', groundTruth: '4' });
  const agent = (id: string, input = '') => ({
    id,
    type: 'CoTAgent' as const,
    description: id,
    input,
    params: {},
  });
  const events: TraceEvent[] = [
    { type: 'agent.start', t: 0, agentId: 'a1', input: 'q' },
    {
      type: 'llm.call',
      t: 1,
      agentId: 'a1',
      callId: 'c1',
      model: 'm',
      messages: [{ role: 'user', content: 'q' }],
      output: '4',
      promptTokens: 10,
      completionTokens: 5,
      latencyMs: 20,
      costUsd: 0.001,
    },
    { type: 'agent.end', t: 22, agentId: 'a1', output: '4' },
    { type: 'agent.start', t: 23, agentId: 'a3', input: '4' },
    { type: 'agent.error', t: 30, agentId: 'a3', error: 'boom', placeholder: '[a3 failed]' },
    { type: 'agent.start', t: 31, agentId: 'sum', input: '4 [a3 failed]' },
    { type: 'agent.end', t: 40, agentId: 'sum', output: '4' },
    { type: 'run.end', t: 41, status: 'completed' },
  ];
  return {
    ...t,
    construction: [
      step(0, { kind: 'add', role: 'Solver', agentId: 'a1', agentType: 'CoTAgent', links: [] }),
      step(1, { kind: 'add', role: 'Critic', agentId: 'a2', agentType: 'ReflexionAgent', links: ['a1'] }, [
        ['a1', 0.8],
      ]),
      step(2, { kind: 'delete', agentId: 'a2' }),
      step(3, { kind: 'add', role: 'Checker', agentId: 'a3', agentType: 'CoTAgent', links: [] }, [
        ['a1', 0.3],
      ]),
      step(4, { kind: 'exit', summarizerId: 'sum' }),
    ],
    design: {
      dom: 'high',
      agents: [agent('a1'), agent('a3'), agent('sum', '${a1} ${a3}')],
      edges: [
        { from: 'a1', to: 'sum' },
        { from: 'a3', to: 'sum' },
      ],
    },
    execution: { backend: { kind: 'none' }, status: 'completed', events },
    result: { finalAnswer: '4', correct: true, answerAgent: 'sum' },
  };
}

describe('replay', () => {
  const trace = sampleTrace();
  const replay = buildReplay(trace);

  it('linearises construction steps then events', () => {
    expect(replay.length).toBe(5 + 8);
    expect(replay.items[0]).toEqual({ kind: 'start' });
    expect(replay.items[1]?.kind).toBe('construction');
    expect(replay.items[6]?.kind).toBe('event');
    expect(replay.sink).toBe('sum');
    // Deleted agents are known (for a stable layout) even though the design dropped them.
    expect([...replay.agents.keys()].sort()).toEqual(['a1', 'a2', 'a3', 'sum']);
    expect(replay.edges.map(edgeId)).toContain('a1>a2');
    expect(replay.eventsByAgent.get('a1')).toEqual([0, 1, 2]);
  });

  it('shows the construction graph after step k with candidate edges', () => {
    expect(replayStateAt(replay, trace, 0).agents).toEqual([]);
    const s2 = replayStateAt(replay, trace, 2);
    expect(s2.phase).toBe('construction');
    expect(s2.agents).toEqual(['a1', 'a2']);
    expect(s2.edges.map(edgeId)).toEqual(['a1>a2']);
    expect(s2.candidate?.edges).toEqual([{ from: 'a1', to: 'a2', p: 0.8, chosen: true }]);
    expect(s2.description).toBe('add Critic → a2');
    const s3 = replayStateAt(replay, trace, 3);
    expect(s3.agents).toEqual(['a1']);
    expect(s3.edges).toEqual([]);
    const s4 = replayStateAt(replay, trace, 4);
    expect(s4.candidate?.edges).toEqual([{ from: 'a1', to: 'a3', p: 0.3, chosen: false }]);
    const s5 = replayStateAt(replay, trace, 5);
    expect(s5.agents).toEqual(['a1', 'a3', 'sum']);
    expect(s5.edges.map(edgeId).sort()).toEqual(['a1>sum', 'a3>sum']);
    expect(s5.description).toBe('exit → sum');
    expect([...s5.progress.values()].every((p) => p.status === 'pending')).toBe(true);
  });

  it('tracks statuses, partial outputs and flowing edges during execution', () => {
    const mid = replayStateAt(replay, trace, 5 + 2);
    expect(mid.phase).toBe('execution');
    // The call is recorded at its start (t = 1) and lasts 20 ms: under way, its tokens not counted yet.
    expect(mid.progress.get('a1')).toMatchObject({
      status: 'running',
      calls: 0,
      tokens: 0,
      costUsd: 0,
      callsInFlight: 1,
      output: null,
    });
    expect(mid.description).toBe('llm.call a1');
    expect(mid.time).toBe(1);
    const ended = replayStateAt(replay, trace, 5 + 3);
    expect(ended.time).toBe(22);
    expect(ended.progress.get('a1')).toMatchObject({
      calls: 1,
      tokens: 15,
      costUsd: 0.001,
      callsInFlight: 0,
    });
    const afterError = replayStateAt(replay, trace, 5 + 6);
    expect(afterError.progress.get('a3')).toMatchObject({ status: 'failed', output: '[a3 failed]' });
    expect(afterError.progress.get('sum')?.status).toBe('running');
    expect([...afterError.flowing].sort()).toEqual(['a1>sum', 'a3>sum']);
    const end = replayStateAt(replay, trace, replay.length);
    expect(end.progress.get('sum')).toMatchObject({ status: 'done', output: '4' });
    expect(end.flowing.size).toBe(0);
    expect(end.time).toBe(41);
  });

  it('clamps positions and handles a trace without construction or events', () => {
    expect(replayStateAt(replay, trace, 999).position).toBe(replay.length);
    expect(replayStateAt(replay, trace, -3).position).toBe(0);
    const plain: Trace = {
      ...trace,
      construction: [],
      execution: { ...trace.execution, status: 'not-run', events: [] },
    };
    const r = buildReplay(plain);
    expect(r.length).toBe(0);
    expect(r.outcomeOnly).toBeNull();
    const s = replayStateAt(r, plain, 0);
    expect(s.agents).toEqual(['a1', 'a3', 'sum']);
    expect(s.time).toBeNull();
    expect([...s.progress.values()].every((p) => p.status === 'pending')).toBe(true);
  });
});

describe('a run recorded without events (imported outcome)', () => {
  const base = sampleTrace();
  const imported: Trace = {
    ...base,
    construction: [],
    execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    result: { finalAnswer: 'The answer is \\boxed{4}', correct: true, answerAgent: 'sum' },
  };

  it('ends on the outcome, where every agent of a completed run is done', () => {
    const r = buildReplay(imported);
    expect(r.outcomeOnly).toBe('completed');
    expect(r.length).toBe(1);
    expect(r.items[1]).toEqual({ kind: 'outcome', status: 'completed' });
    const end = replayStateAt(r, imported, r.length);
    expect(end.phase).toBe('execution');
    expect(end.description).toBe('outcome: completed · no events recorded');
    expect([...end.progress.values()].map((p) => p.status)).toEqual(['done', 'done', 'done']);
    expect(end.progress.get('sum')?.output).toBe('The answer is \\boxed{4}');
    expect(end.progress.get('a1')?.output).toBeNull();
    expect(end.focus).toBe('sum');
    expect(end.time).toBeNull();
    // The start still shows the design before anything ran.
    expect(replayStateAt(r, imported, 0).progress.get('sum')?.status).toBe('pending');
  });

  it('after construction steps, as one more position', () => {
    const withSteps: Trace = { ...imported, construction: base.construction };
    const r = buildReplay(withSteps);
    expect(r.length).toBe(base.construction.length + 1);
    expect(replayStateAt(r, withSteps, r.length).progress.get('a3')?.status).toBe('done');
  });

  it('marks the final agent of a failed run without an answer as failed, and says nothing of the others', () => {
    const failed: Trace = {
      ...imported,
      execution: { ...imported.execution, status: 'failed' },
      result: { finalAnswer: null, correct: null, answerAgent: 'sum' },
    };
    const r = buildReplay(failed);
    const end = replayStateAt(r, failed, r.length);
    expect(end.progress.get('sum')?.status).toBe('failed');
    expect(end.progress.get('a1')?.status).toBe('pending');
  });

  it('leaves a run still going, or recorded with events, as it is', () => {
    const running: Trace = { ...imported, execution: { ...imported.execution, status: 'running' } };
    expect(buildReplay(running).outcomeOnly).toBeNull();
    expect(buildReplay(base).outcomeOnly).toBeNull();
  });
});

describe('replay: tokens of a call count at its end', () => {
  const call = (t: number, agentId: string, latencyMs: number, tokens: number): TraceEvent => ({
    type: 'llm.call',
    t,
    agentId,
    callId: `${agentId}@${t}`,
    model: 'm',
    messages: [{ role: 'user', content: 'q' }],
    output: 'x',
    promptTokens: tokens,
    completionTokens: 0,
    latencyMs,
    costUsd: 0,
  });
  // Three parallel calls of one agent start at 0 ms; another agent's events mark the time passing.
  const t0 = minimalTrace({ query: 'q' });
  const agent = (id: string) => ({ id, type: 'SCAgent' as const, description: id, input: '', params: {} });
  const trace: Trace = {
    ...t0,
    design: { dom: 'low', agents: [agent('sc'), agent('other')], edges: [] },
    execution: {
      backend: { kind: 'none' },
      status: 'completed',
      events: [
        { type: 'agent.start', t: 0, agentId: 'sc', input: 'q' },
        call(0, 'sc', 1000, 300),
        call(0, 'sc', 2000, 288),
        call(0, 'sc', 3000, 276),
        { type: 'agent.start', t: 1500, agentId: 'other', input: 'q' },
        { type: 'agent.end', t: 2500, agentId: 'other', output: 'y' },
        { type: 'agent.end', t: 3000, agentId: 'sc', output: 'x' },
        { type: 'run.end', t: 3000, status: 'completed' },
      ],
    },
  };
  const replay = buildReplay(trace);
  const sc = (position: number) => replayStateAt(replay, trace, position).progress.get('sc');

  it('shows no calls and no tokens at 0.0 s while three calls are under way', () => {
    expect(replayStateAt(replay, trace, 4).time).toBe(0);
    expect(sc(4)).toMatchObject({ status: 'running', calls: 0, tokens: 0, callsInFlight: 3 });
  });

  it('counts each call once the cursor has passed its end', () => {
    expect(sc(5)).toMatchObject({ calls: 1, tokens: 300, callsInFlight: 2 }); // 1.5 s
    expect(sc(6)).toMatchObject({ calls: 2, tokens: 588, callsInFlight: 1 }); // 2.5 s
    expect(sc(7)).toMatchObject({ status: 'done', calls: 3, tokens: 864, callsInFlight: 0 });
    expect(sc(replay.length)).toMatchObject({ calls: 3, tokens: 864, callsInFlight: 0 });
  });
});
