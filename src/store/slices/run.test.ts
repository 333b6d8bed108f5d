import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import { configureKeys, memoryKeyStore, type KeyStorages } from '../services/keys.ts';
import { memoryRecents, type RecentsStorage } from '../services/recents.ts';
import { activeRunMarker, markActiveRun } from '../services/runner.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureLibrary, type LibraryEnv } from './library.ts';
import { runTitle } from './run-trace.ts';
import { checkDesign, interruptedAt, runBlockers } from './run.ts';

let storage: RecentsStorage;
let previousLibrary: LibraryEnv;
let previousKeys: KeyStorages;

beforeEach(() => {
  storage = memoryRecents();
  previousLibrary = configureLibrary({
    storage,
    base: () => 'https://baton.example/',
    fetchImpl: async () => new Response('{}', { status: 404 }),
  });
  previousKeys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
  resetBaton();
});
afterEach(() => {
  configureLibrary(previousLibrary);
  configureKeys(previousKeys);
});

const s = () => useBaton.getState();

const CHAIN = JSON.stringify({
  agents: [
    { id: 'x', type: 'CoTAgent', input: '' },
    { id: 'y', type: 'CoTAgent', input: '${x}' },
  ],
  edges: [{ from: 'x', to: 'y' }],
});

describe('drawing a design', () => {
  it('adds agents, connects them with ${id} inputs, renames and removes consistently', () => {
    const a = s().draftAddAgent('CoTAgent');
    const b = s().draftAddAgent('DebateAgent');
    expect([a, b]).toEqual(['cot1', 'debate1']);
    s().setDesignMode('draw');
    expect(checkDesign(s()).violations.map((v) => v.rule)).toContain(4);

    s().draftConnect(a, b);
    s().draftConnect(a, b);
    expect(s().draft.edges).toEqual([{ from: 'cot1', to: 'debate1' }]);
    expect(s().draft.agents[1]?.input).toBe('${cot1}');
    const valid = checkDesign(s());
    expect(valid.violations).toEqual([]);
    expect(valid.design?.agents[1]?.params.debateRoles).toEqual(['Proponent', 'Skeptic']);

    s().draftUpdateAgent('cot1', { id: 'solver' });
    expect(s().draft.edges).toEqual([{ from: 'solver', to: 'debate1' }]);
    expect(s().draft.agents[1]?.input).toBe('${solver}');
    expect(s().draft.positions.solver).toBeDefined();
    // Renaming onto an existing id is refused.
    s().draftUpdateAgent('solver', { id: 'debate1' });
    expect(s().draft.agents.map((x) => x.id)).toEqual(['solver', 'debate1']);

    s().draftRemoveEdge('solver', 'debate1');
    expect(s().draft.agents[1]?.input).toBe('');
    s().draftConnect('solver', 'debate1');
    s().draftRemoveAgent('solver');
    expect(s().draft.edges).toEqual([]);
    expect(s().draft.agents[0]?.input).toBe('');
    expect(checkDesign(s()).design?.dom).toBe('low');
  });

  it('ignores self-loops and edges to unknown agents', () => {
    const a = s().draftAddAgent('CoTAgent');
    s().draftConnect(a, a);
    s().draftConnect(a, 'ghost');
    expect(s().draft.edges).toEqual([]);
  });
});

describe('checking and blocking', () => {
  it('lists every numbered violation of a pasted design', () => {
    s().setDesignMode('paste');
    s().setDesignText(
      JSON.stringify({
        agents: [
          { id: 'p', type: 'Nope', input: '${q}' },
          { id: 'q', type: 'CoTAgent', input: '${p}' },
        ],
        edges: [
          { from: 'p', to: 'q' },
          { from: 'q', to: 'p' },
        ],
      }),
    );
    const check = checkDesign(s());
    expect(check.design).toBeNull();
    expect(check.violations.map((v) => v.rule)).toEqual(expect.arrayContaining([2, 6]));
    // The problems are listed in the Design section, which is above the Run button.
    expect(runBlockers(s())).toContainEqual(expect.stringMatching(/problems \(listed under 2 · Design\)\.$/));
    s().setDesignText('<agent><oops');
    expect(checkDesign(s()).problems.length + checkDesign(s()).violations.length).toBeGreaterThan(0);
  });

  it('blocks the simulator without a generated task and a provider without a key', () => {
    s().setDesignMode('paste');
    s().setDesignText(CHAIN);
    s().setCustomQuery('Q?');
    expect(runBlockers(s())).toEqual(['Settings: enter an API key for OpenAI.']);
    s().setBackendMode('simulator');
    expect(s().taskMode).toBe('masbench');
    expect(s().benchTask?.question.length).toBeGreaterThan(10);
    expect(runBlockers(s())).toEqual([]);
    s().setTaskMode('custom');
    expect(runBlockers(s())).toContain('The simulator runs generated MASBench tasks only.');
    s().setBench({ value: 99 });
    expect(s().benchTask).toBeNull();
    expect(s().benchError).not.toBeNull();
  });
});

describe('naming runs', () => {
  const choice = {
    customQuery: '',
    customTruth: '',
    designTrace: { status: 'idle' as const },
    backendMode: 'provider' as const,
  };
  const design = {
    dom: 'high' as const,
    agents: [{ id: 'x', type: 'CoTAgent' as const, description: '', input: '', params: {} }],
    edges: [],
  };

  it('gives runs of different generated tasks different titles, whatever their questions share', () => {
    const titles = [1, 2, 3].map((seed) => {
      s().setBench({ axis: 'depth', value: 6, seed });
      const t = runTitle(
        { ...choice, taskMode: 'masbench', benchTask: s().benchTask, designMode: 'draw' },
        design,
      );
      expect(s().benchTask?.question).not.toContain(t);
      return t;
    });
    expect(titles[2]).toBe('Run · depth 6 (seed 3) · drawn design (1 agent)');
    expect(new Set(titles).size).toBe(3);
  });

  it('names a custom task by its first words and a design by the trace it came from', () => {
    const from = {
      ...minimalTrace({ query: 'Parallel?' }),
      title: 'Parallel branches: two sub-problems, then a merge',
    };
    const t = runTitle(
      {
        ...choice,
        taskMode: 'custom',
        benchTask: null,
        customQuery:
          'What is the area of a $3 \\times 4$ rectangle, and of a square with the same perimeter?',
        designMode: 'trace',
        designTrace: { status: 'ready', trace: from },
      },
      design,
    );
    expect(t).toBe(
      'Run · What is the area of a 3 × 4 rectangle, and of a… · design of “Parallel branches: two sub-problems…” (1 agent)',
    );
  });
});

describe('running', () => {
  it('runs a MASBench task on the simulator, saves the trace as it grows and ends with an answer', async () => {
    const saves: Trace[] = [];
    const save = storage.save.bind(storage);
    storage.save = async (index, added, dropped) => {
      saves.push(...added);
      return save(index, added, dropped);
    };
    s().setBackendMode('simulator');
    s().setBench({ axis: 'depth', value: 2, seed: 3 });
    s().setDesignMode('paste');
    s().setDesignText(CHAIN);
    const pending = s().startRun();
    expect(s().liveRunId).not.toBeNull();
    expect(activeRunMarker()).toBe(s().liveRunId);
    const id = await pending;
    expect(id).not.toBeNull();
    expect(s().liveRunId).toBeNull();
    expect(activeRunMarker()).toBeNull();
    const trace = s().liveTrace as Trace;
    expect(trace.execution.backend.kind).toBe('simulated');
    expect(trace.task.source).toMatchObject({ kind: 'masbench', axis: 'depth', value: 2 });
    expect(trace.result.finalAnswer).toContain('boxed');
    // Named by its task and design, like Build's traces, not by the question's shared preamble.
    expect(trace.title).toBe('Run · depth 2 (seed 3) · pasted design (2 agents) · simulated');
    expect(s().recents[0]?.title).toBe(trace.title);
    expect(saves[0]?.execution.status).toBe('running');
    expect(saves.at(-1)?.execution.status).toBe('completed');
    expect(s().recents[0]?.id).toBe(id);
    expect((await storage.loadTrace(id as string))?.ok).toBe(true);
  });

  it('marks a trace left running by an earlier page load as interrupted', async () => {
    const running: Trace = {
      ...minimalTrace({ query: 'Q', id: 'half-done' }),
      design: {
        dom: 'low',
        agents: [{ id: 'x', type: 'CoTAgent', description: '', input: '', params: {} }],
        edges: [],
      },
      execution: {
        backend: { kind: 'none' },
        status: 'running',
        events: [{ type: 'agent.start', t: 0, agentId: 'x', input: 'Q' }],
      },
    };
    await storage.save([], [running], []);
    markActiveRun('half-done');
    await s().initRun();
    expect(s().interrupted).toEqual({ traceId: 'half-done', events: 1 });
    expect(s().liveTrace?.tags).toContain('interrupted');
    expect(activeRunMarker()).toBeNull();
    const stored = await storage.loadTrace('half-done');
    expect(stored?.ok && stored.value.tags).toContain('interrupted');
    expect(interruptedAt(running, null)).toBe(1);
    expect(interruptedAt(running, 'half-done')).toBeNull();
  });
});

describe('the Run page defaults and carries', () => {
  it('starts on the simulator with a generated task while the provider has no key', async () => {
    await s().initRun();
    expect(s().keyLocation).toBe('none');
    expect(s().backendMode).toBe('simulator');
    expect(s().taskMode).toBe('masbench');
    expect(s().benchTask).not.toBeNull();
  });

  it('starts on the provider once a key is saved, and keeps a backend the user picked', async () => {
    s().setApiKey('sk-test-not-a-real-key', false);
    resetBaton();
    await s().initRun();
    expect(s().backendMode).toBe('provider');

    s().setBackendMode('simulator');
    await s().initRun();
    expect(s().backendMode).toBe('simulator');
  });

  it('carries a valid pasted design into an empty drawing when switching Paste → Draw', () => {
    s().setDesignMode('paste');
    s().setDesignText(CHAIN);
    s().setDesignMode('draw');
    expect(s().designMode).toBe('draw');
    expect(s().draft.agents.map((a) => a.id)).toEqual(['x', 'y']);
    expect(s().draft.edges).toEqual([{ from: 'x', to: 'y' }]);
    expect(s().pasteCarry).toEqual({ kind: 'carried', agents: 2, edges: 1 });
    expect(checkDesign(s()).design?.agents).toHaveLength(2);
  });

  it('never replaces a drawing unasked, and leaves it alone for text that is no design', () => {
    s().draftAddAgent('CoTAgent');
    s().setDesignMode('paste');
    s().setDesignText(CHAIN);
    s().setDesignMode('draw');
    expect(s().draft.agents.map((a) => a.id)).toEqual(['cot1']);
    expect(s().pasteCarry).toEqual({ kind: 'kept-drawing', agents: 2, edges: 1 });
    s().draftFromPaste();
    expect(s().draft.agents.map((a) => a.id)).toEqual(['x', 'y']);

    s().setDesignMode('paste');
    s().setDesignText('<agent><oops');
    s().setDesignMode('draw');
    expect(s().pasteCarry).toEqual({ kind: 'invalid' });
    expect(s().draft.agents.map((a) => a.id)).toEqual(['x', 'y']);
  });
});
