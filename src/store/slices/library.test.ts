import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Trace } from '../../core/trace.ts';
import { encodeTraceLink } from '../../share/index.ts';
import { memoryRecents, type RecentsStorage } from '../services/recents.ts';
import { resetBaton, useBaton } from '../store.ts';
import {
  configureLibrary,
  exampleMatches,
  matchesSearch,
  mergeRecents,
  recentEntryOf,
  recentMatches,
  type LibraryEnv,
} from './library.ts';

const trace = (id: string, query = `Question ${id}?`): Trace => ({
  ...minimalTrace({ query, id, title: `Trace ${id}` }),
  design: {
    dom: 'high',
    agents: [{ id: 'solver', type: 'DebateAgent', description: 'argues', input: '', params: {} }],
    edges: [],
  },
  tags: ['geometry'],
});

const file = (name: string, text: string) => ({ name, size: text.length, text: async () => text });

let previous: LibraryEnv;
let storage: RecentsStorage;

beforeEach(() => {
  storage = memoryRecents();
  previous = configureLibrary({ storage, base: () => 'https://baton.example/app/' });
  resetBaton();
});

afterEach(() => {
  configureLibrary(previous);
});

/** A new store over the same storage: what a page reload looks like to the library. */
async function reload(): Promise<void> {
  resetBaton();
  await useBaton.getState().initLibrary();
}

describe('recents list functions', () => {
  it('puts added entries on top, replaces duplicates and keeps every entry', () => {
    const entries = Array.from({ length: 250 }, (_, i) => recentEntryOf(trace(`t${i}`), 'file', 'x'));
    const merged = mergeRecents(entries, [
      recentEntryOf(trace('new'), 'link', 'y'),
      recentEntryOf(trace('t5'), 'link', 'y'),
    ]);
    expect(merged).toHaveLength(251);
    expect(merged.slice(0, 2).map((e) => e.id)).toEqual(['new', 't5']);
    expect(merged.filter((e) => e.id === 't5')).toHaveLength(1);
    expect(merged.at(-1)?.id).toBe('t249');
  });

  it('searches title, question, agent types and tags, every word', () => {
    const e = recentEntryOf(trace('a', 'How many lanterns are in Harbor Town?'), 'file', 'x');
    expect(recentMatches(e, 'harbor')).toBe(true);
    expect(recentMatches(e, 'debateagent')).toBe(true);
    expect(recentMatches(e, 'GEOMETRY lanterns')).toBe(true);
    expect(recentMatches(e, 'lanterns reflexion')).toBe(false);
    expect(matchesSearch('   ', ['anything'])).toBe(true);
    const example = {
      file: 'a.json',
      title: 'Debate',
      summary: 'two roles',
      tags: ['low-dom'],
      trace: { ok: true as const, value: trace('a'), warnings: [] },
    };
    expect(exampleMatches(example, 'low-dom')).toBe(true);
    expect(exampleMatches(example, 'harbor')).toBe(false);
  });

  it('finds imported traces by the file they came from and their dataset', () => {
    const base = trace('s', 'Let $ABC$ be a triangle.');
    const slide: Trace = {
      ...base,
      task: { ...base.task, source: { kind: 'dataset', name: 'aime24', item: 'row 3' } },
      designer: { kind: 'imported', tool: 'MAS-Orchestra', trainingStep: 130 },
    };
    const e = recentEntryOf(slide, 'file', 'x', 'harmony_grpo_7b_120b_aime24.sample.json');
    expect(recentMatches(e, 'aime')).toBe(true);
    expect(recentMatches(e, 'harmony row 3')).toBe(true);
    expect(recentMatches(e, 'aime25')).toBe(false);
    const example = {
      file: 'parallel-branches.json',
      title: 'Parallel',
      summary: '',
      tags: [],
      trace: { ok: true as const, value: slide, warnings: [] },
    };
    expect(exampleMatches(example, 'aime24')).toBe(true);
    expect(exampleMatches(example, 'parallel-branches')).toBe(true);
  });

  it('lists a trace under a plain title cut at a word, with the row and step of an imported slide', () => {
    const base = trace(
      's',
      'Let $ABC$ be a triangle inscribed in circle $\\omega$, with tangents at $B$ and $C$.',
    );
    const slide: Trace = {
      ...base,
      title: base.task.query.slice(0, 50),
      task: { ...base.task, source: { kind: 'dataset', name: 'aime24', item: 'row 3' } },
      designer: { kind: 'imported', tool: 'MAS-Orchestra', trainingStep: 130 },
    };
    expect(recentEntryOf(slide, 'file', 'x').title).toBe(
      'Let ABC be a triangle inscribed in circle ω, with tangents… · aime24 · row 3 · step 130',
    );
  });
});

describe('library slice', () => {
  it('imports many files, reports failures, and remembers every imported trace', async () => {
    const first = await useBaton
      .getState()
      .importFiles([
        file('two.json', JSON.stringify([trace('one'), trace('two')])),
        file('broken.json', '{ not json'),
      ]);
    const s = useBaton.getState();
    expect(first).toBe('one');
    expect(s.importReport).toMatchObject({ imported: 2, failed: 1 });
    expect(s.importReport?.files[1]?.failures[0]?.message).toMatch(/JSON/);
    expect(s.recents.map((e) => e.id)).toEqual(['one', 'two']);
    expect(s.openTraces.two?.title).toBe('Trace two');
    expect(s.importing).toBeNull();
  });

  it('refuses oversized files before reading them', async () => {
    await useBaton
      .getState()
      .importFiles([{ name: 'huge.json', size: 64 * 1024 * 1024, text: async () => '' }]);
    expect(useBaton.getState().importReport?.files[0]?.failures[0]?.message).toMatch(/larger/);
  });

  it('keeps recents across a reload and finds a trace by id from storage', async () => {
    await useBaton
      .getState()
      .rememberTraces([{ trace: trace('kept'), source: 'file', sourceLabel: 'k.json' }]);
    await reload();
    expect(useBaton.getState().openTraces.kept).toBeUndefined();
    expect(useBaton.getState().recents.map((e) => e.id)).toEqual(['kept']);
    const found = await useBaton.getState().ensureTrace('kept');
    expect(found?.title).toBe('Trace kept');
    expect(useBaton.getState().recents[0]?.source).toBe('file');
  });

  it('says so when a trace id is nowhere to be found', async () => {
    configureLibrary({ fetchImpl: async () => new Response('{"examples":[]}') });
    expect(await useBaton.getState().ensureTrace('ghost')).toBeNull();
    const load = useBaton.getState().traceLoads.ghost;
    expect(load?.status === 'error' && load.problems[0]?.code).toBe('E_NOT_FOUND');
  });

  it('opens share links and explains malformed ones', () => {
    const link = encodeTraceLink(trace('shared'));
    const id = useBaton.getState().openShareLink(link.fragment.slice(1));
    expect(id).toBe('shared');
    expect(useBaton.getState().openTraces.shared?.design.agents).toHaveLength(1);

    for (const bad of ['t=1.garbage', 't=99.x']) {
      expect(useBaton.getState().openShareLink(bad)).toBeNull();
      expect(useBaton.getState().openError?.problems[0]?.code).toBe('E_LINK');
    }
  });

  it('imports ?src= and reports fetch failures', async () => {
    configureLibrary({
      fetchImpl: async (input) =>
        String(input).endsWith('/ok.json')
          ? new Response(JSON.stringify(trace('remote')))
          : new Response('gone', { status: 410, statusText: 'Gone' }),
    });
    expect(await useBaton.getState().importFromUrl('ok.json')).toBe('remote');
    expect(useBaton.getState().recents[0]).toMatchObject({ id: 'remote', source: 'url' });
    expect(await useBaton.getState().importFromUrl('missing.json')).toBeNull();
    expect(useBaton.getState().openError?.problems[0]?.message).toMatch(/HTTP 410/);
  });

  it('removes one recent and clears them all', async () => {
    await useBaton.getState().rememberTraces([
      { trace: trace('a'), source: 'file' },
      { trace: trace('b'), source: 'file' },
    ]);
    await useBaton.getState().removeRecent('a');
    expect(useBaton.getState().recents.map((e) => e.id)).toEqual(['b']);
    expect(await storage.loadTrace('a')).toBeNull();
    await useBaton.getState().clearRecents();
    await reload();
    expect(useBaton.getState().recents).toEqual([]);
  });
});
