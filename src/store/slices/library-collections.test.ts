import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import type { Agent, Trace } from '../../core/trace.ts';
import { parseQuery } from '../../view/search.ts';
import { memoryRecents, type RecentsStorage, type StorageUse } from '../services/recents.ts';
import { resetBaton, useBaton } from '../store.ts';
import {
  configureLibrary,
  facetsOf,
  galleryRows,
  groupRecents,
  NO_FILTERS,
  passesFilters,
  recentEntryOf,
  searchRecents,
  type LibraryEnv,
} from './library.ts';
import { upgradeEntry, migrateRecents } from './library-migrate.ts';
import { planEviction } from './library-quota.ts';

/** A case-page slide as the MAS-Orchestra importer makes it: dataset row, step, DoM, no events. */
function slide(
  file: 'aime24' | 'depth6',
  row: number,
  over: { correct?: boolean | null; answer?: string | null; types?: Agent['type'][] } = {},
): Trace {
  const base = minimalTrace({ query: `Problem ${file} ${row}: find x.`, id: `${file}-${row}` });
  const types: Agent['type'][] = over.types ?? ['CoTAgent'];
  return {
    ...base,
    task: {
      ...base.task,
      source:
        file === 'aime24'
          ? { kind: 'dataset', name: 'aime24', item: `row ${row}` }
          : { kind: 'masbench', axis: 'depth', value: 6, taskId: `row ${row}` },
    },
    designer: {
      kind: 'imported',
      tool: 'MAS-Orchestra',
      trainingStep: file === 'aime24' ? 130 : 180,
      dom: file === 'aime24' ? 'high' : 'low',
    },
    design: {
      dom: file === 'aime24' ? 'high' : 'low',
      agents: types.map((type, i) => ({ id: `a${i}`, type, description: 'd', input: '', params: {} })),
      edges: [],
    },
    execution: { backend: { kind: 'imported', tool: 'MAS-Orchestra' }, status: 'completed', events: [] },
    result: {
      finalAnswer: over.answer === undefined ? '7' : over.answer,
      correct: over.correct === undefined ? true : over.correct,
    },
  };
}

const AIME = 'harmony_grpo_7b_120b_aime24.json';
const DEPTH = 'qwen2.5_20b_oss_20b_low_depth6.json';
const entryOf = (t: Trace, file: string, at = '2026-01-01T00:00:00.000Z') =>
  recentEntryOf(t, 'file', at, file);

describe('recent entries of imported slides', () => {
  it('keep the file, row, step, result, agent types and DoM, and say tokens were not recorded', () => {
    const e = entryOf(slide('aime24', 130, { types: ['DebateAgent', 'CoTAgent'] }), AIME);
    expect(e).toMatchObject({
      sourceLabel: AIME,
      row: '130',
      step: 130,
      result: 'correct',
      agentTypes: ['DebateAgent', 'CoTAgent'],
      dom: 'high',
      tokens: null,
      costUsd: null,
    });
    expect(e.bytes).toBeGreaterThan(100);
    expect(entryOf(slide('aime24', 1, { correct: false }), AIME).result).toBe('wrong');
    expect(entryOf(slide('aime24', 2, { answer: null, correct: false }), AIME).result).toBe('failed');
  });
});

describe('search over the index', () => {
  const entries = [
    ...Array.from({ length: 240 }, (_, r) => entryOf(slide('aime24', r), AIME)),
    ...Array.from({ length: 41 }, (_, r) => entryOf(slide('depth6', r), DEPTH)),
  ];
  it('"aime24 row:130" and "aime24 row 130" find exactly one slide', () => {
    expect(searchRecents(entries, parseQuery('aime24 row:130')).map((e) => e.id)).toEqual(['aime24-130']);
    expect(searchRecents(entries, parseQuery('aime24 row 130')).map((e) => e.id)).toEqual(['aime24-130']);
    expect(searchRecents(entries, parseQuery('step:130'))).toHaveLength(240);
    expect(searchRecents(entries, parseQuery('file:depth6 row:40')).map((e) => e.id)).toEqual(['depth6-40']);
    expect(searchRecents(entries, parseQuery('"problem depth6 3:"')).map((e) => e.id)).toEqual(['depth6-3']);
  });
});

describe('collections', () => {
  const entries = [
    entryOf(slide('depth6', 0, { correct: false }), DEPTH),
    entryOf(slide('depth6', 1, { answer: '', correct: false }), DEPTH),
    entryOf(slide('aime24', 0), AIME),
    entryOf(slide('aime24', 1, { types: ['DebateAgent'] }), AIME),
    entryOf(slide('aime24', 2, { correct: null }), AIME),
    recentEntryOf(
      {
        ...minimalTrace({ query: 'run', id: 'run' }),
        execution: { backend: { kind: 'simulated', seed: 1 }, status: 'completed', events: [] },
        result: { finalAnswer: '3', correct: true },
      },
      'app',
      '2026-01-01T00:00:00.000Z',
    ),
  ];

  it('group by source file, newest first, with counts, accuracy and tokens', () => {
    const groups = groupRecents(entries, entries);
    expect(groups.map((g) => [g.label, g.total, g.entries.length])).toEqual([
      [DEPTH, 2, 2],
      [AIME, 3, 3],
      ['Made in Baton', 1, 1],
    ]);
    const [depth, aime, made] = groups;
    expect(depth!.counts).toEqual({ correct: 0, wrong: 1, failed: 1, unknown: 0 });
    expect(depth!.accuracy).toBe(0);
    expect(aime!.counts).toEqual({ correct: 2, wrong: 0, failed: 0, unknown: 1 });
    expect(aime!.accuracy).toBe(1);
    expect(aime!.tokens).toBeNull();
    expect(aime!.tokensNotRecorded).toBe(3);
    // A run made here recorded its (zero) tokens: a real 0, not "not recorded".
    expect(made!.tokens).toBe(0);
  });

  it('count the whole collection while showing only what the search keeps', () => {
    const shown = searchRecents(entries, parseQuery('row:1'));
    const groups = groupRecents(entries, shown);
    expect(groups.map((g) => [g.label, g.total, g.entries.length])).toEqual([
      [DEPTH, 2, 1],
      [AIME, 3, 1],
    ]);
  });

  it('filter by file, result, agent type and DoM', () => {
    const keep = (f: Partial<typeof NO_FILTERS>) =>
      entries.filter((e) => passesFilters(e, { ...NO_FILTERS, ...f })).map((e) => e.id);
    expect(keep({ collection: `file:${DEPTH}` })).toEqual(['depth6-0', 'depth6-1']);
    expect(keep({ result: 'failed' })).toEqual(['depth6-1']);
    expect(keep({ result: 'unknown' })).toEqual(['aime24-2']);
    expect(keep({ type: 'DebateAgent' })).toEqual(['aime24-1']);
    expect(keep({ dom: 'low' })).toEqual(['depth6-0', 'depth6-1']);
    expect(keep({ dom: 'high', result: 'correct' })).toEqual(['aime24-0', 'aime24-1', 'run']);
    const facets = facetsOf(entries);
    expect(facets.collections.map((c) => c.count)).toEqual([2, 3, 1]);
    expect(facets.types).toEqual(['CoTAgent', 'DebateAgent']);
    expect(facets.doms).toEqual(['high', 'low']);
  });

  it('become rows: a header per collection, its traces unless folded', () => {
    const groups = groupRecents(entries, entries);
    expect(galleryRows(groups, new Set()).map((r) => r.kind)).toEqual([
      'collection',
      'trace',
      'trace',
      'collection',
      'trace',
      'trace',
      'trace',
      'collection',
      'trace',
    ]);
    const folded = galleryRows(groups, new Set([`file:${AIME}`]));
    expect(folded).toHaveLength(6);
    expect(folded[3]).toMatchObject({ kind: 'collection', open: false });
  });
});

describe('planEviction', () => {
  const list = ['new', 'mid', 'old'].map((id) => ({
    ...entryOf(slide('aime24', 0), AIME),
    id,
    bytes: 100,
  }));
  const use = (usage: number, quota: number): StorageUse => ({ usage, quota });

  it('removes nothing without an estimate or below the share of the quota', () => {
    expect(planEviction(list, null, 10_000, new Set()).drop).toEqual([]);
    expect(planEviction(list, use(500, 1000), 200, new Set()).drop).toEqual([]);
  });

  it('removes the least recently opened first, never the traces being added', () => {
    const plan = planEviction(list, use(750, 1000), 120, new Set(['old']));
    // 750 + 120 − 800 = 70 bytes over: one 100-byte trace, the oldest that is not being added.
    expect(plan).toEqual({ drop: ['mid'], freedBytes: 100, overBytes: 70, fits: true });
  });

  it('says when removing every older trace still does not make room', () => {
    const plan = planEviction(list, use(1000, 1000), 1000, new Set(['new']));
    expect(plan.drop).toEqual(['old', 'mid']);
    expect(plan.fits).toBe(false);
  });
});

describe('migration of stored recents from version 1', () => {
  it('rebuilds an entry from its stored trace, keeping where and when it came in', () => {
    const t = slide('aime24', 7, { correct: false });
    const v1 = {
      id: t.id,
      title: 'Problem aime24 7: find x. · aime24 · row 7 · step 130',
      createdAt: t.createdAt,
      openedAt: '2025-12-01T00:00:00.000Z',
      agentCount: 1,
      correct: false,
      source: 'file' as const,
      sourceLabel: AIME,
      query: t.task.query,
      agentTypes: ['CoTAgent'],
      tags: [],
    };
    const up = upgradeEntry(v1, t);
    expect(up).toMatchObject({
      openedAt: '2025-12-01T00:00:00.000Z',
      sourceLabel: AIME,
      row: '7',
      step: 130,
      dom: 'high',
      result: 'wrong',
      tokens: null,
    });
    // Without its trace, the title and `correct` still give the row, step and result.
    expect(upgradeEntry(v1, null)).toMatchObject({ row: '7', step: 130, result: 'wrong' });
    expect(upgradeEntry(v1, null).dom).toBeUndefined();
  });

  it('runs when the library opens a version-1 index, and saves version 2', async () => {
    const traces = [slide('aime24', 1), slide('depth6', 2)];
    const v1 = traces.map((t) => {
      const {
        row: _row,
        step: _step,
        dom: _dom,
        result: _r,
        tokens: _t,
        costUsd: _c,
        bytes: _b,
        ...old
      } = entryOf(t, AIME);
      return old;
    });
    const storage: RecentsStorage = memoryRecents({ version: 1, entries: v1 });
    await storage.save(v1, traces, []);
    // `save` writes the current version; start from a store that still says 1.
    const stale: RecentsStorage = {
      ...storage,
      load: async () => ({ ok: true, value: { version: 1, entries: v1 }, warnings: [] }),
    };
    const migrated = await migrateRecents(v1, async (id) => traces.find((t) => t.id === id) ?? null);
    expect(migrated.map((e) => e.row)).toEqual(['1', '2']);

    const previous = configureLibrary({ storage: stale, estimate: async () => null });
    resetBaton();
    try {
      await useBaton.getState().initLibrary();
      expect(useBaton.getState().recents.map((e) => [e.id, e.row, e.result])).toEqual([
        ['aime24-1', '1', 'correct'],
        ['depth6-2', '2', 'correct'],
      ]);
      const saved = await storage.load();
      expect(saved.ok && saved.value.version).toBe(2);
      expect(saved.ok && saved.value.entries.map((e) => e.step)).toEqual([130, 180]);
    } finally {
      configureLibrary(previous);
    }
  });
});

describe('library slice: no cap, the quota, collections', () => {
  let previous: LibraryEnv;
  let storage: RecentsStorage;
  let estimate: StorageUse | null;
  const file = (name: string, traces: Trace[]) => {
    const text = JSON.stringify(traces);
    return { name, size: text.length, text: async () => text };
  };

  beforeEach(() => {
    storage = memoryRecents();
    estimate = null;
    previous = configureLibrary({
      storage,
      estimate: async () => estimate,
      base: () => 'https://b.example/',
    });
    resetBaton();
  });
  afterEach(() => {
    configureLibrary(previous);
  });

  it('keeps all 281 traces of two files across a reload, and old links still open after later imports', async () => {
    const aime = Array.from({ length: 240 }, (_, r) => slide('aime24', r));
    const depth = Array.from({ length: 41 }, (_, r) => slide('depth6', r));
    await useBaton.getState().importFiles([file(AIME, aime), file(DEPTH, depth)]);
    expect(useBaton.getState().importReport?.imported).toBe(281);
    await useBaton.getState().importFiles([file('more.json', [slide('aime24', 999)])]);
    resetBaton();
    await useBaton.getState().initLibrary();
    const recents = useBaton.getState().recents;
    expect(recents).toHaveLength(282);
    expect(groupRecents(recents, recents).map((g) => [g.label, g.total])).toEqual([
      ['more.json', 1],
      [AIME, 240],
      [DEPTH, 41],
    ]);
    for (const id of ['aime24-0', 'aime24-239', 'depth6-0', 'depth6-40'])
      expect((await useBaton.getState().ensureTrace(id))?.id).toBe(id);
    expect(useBaton.getState().evictionNotice).toBeNull();
  });

  it('removes traces for the storage quota only, and announces each one', async () => {
    await useBaton.getState().importFiles([file(AIME, [slide('aime24', 0), slide('aime24', 1)])]);
    const bytes = useBaton.getState().recents[0]!.bytes!;
    // The next import would pass 80 % of the quota by a little: the oldest trace makes room.
    estimate = { usage: 800_000 - bytes + 10, quota: 1_000_000 };
    await useBaton.getState().importFiles([file(DEPTH, [slide('depth6', 0)])]);
    const s = useBaton.getState();
    expect(s.recents.map((e) => e.id)).toEqual(['depth6-0', 'aime24-0']);
    expect(s.evictionNotice).toMatchObject({ count: 1, use: estimate });
    expect(s.evictionNotice?.titles[0]).toContain('row 1');
    expect(await storage.loadTrace('aime24-1')).toBeNull();
    expect(s.storageUse).toEqual(estimate);
    useBaton.getState().dismissEvictionNotice();
    expect(useBaton.getState().evictionNotice).toBeNull();
  });

  it('deletes a whole collection on the user’s word', async () => {
    await useBaton
      .getState()
      .importFiles([file(AIME, [slide('aime24', 0), slide('aime24', 1)]), file(DEPTH, [slide('depth6', 0)])]);
    const aime = groupRecents(useBaton.getState().recents, useBaton.getState().recents).find(
      (g) => g.label === AIME,
    )!;
    await useBaton.getState().removeRecents(aime.entries.map((e) => e.id));
    expect(useBaton.getState().recents.map((e) => e.id)).toEqual(['depth6-0']);
    expect(await storage.loadTrace('aime24-0')).toBeNull();
    expect(useBaton.getState().evictionNotice).toBeNull();
  });
});
