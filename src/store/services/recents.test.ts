import 'fake-indexeddb/auto';
import { createStore, set } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { recentEntryOf } from '../slices/library.ts';
import { idbRecents, readIndex, RECENTS_FORMAT } from './recents.ts';

let n = 0;
const freshDb = (): string => `baton-test-${++n}`;

describe('idbRecents', () => {
  it('round-trips the index and the full traces', async () => {
    const db = freshDb();
    const storage = idbRecents(db);
    const a = minimalTrace({ query: 'What is 2+2?', id: 'a' });
    const b = minimalTrace({ query: 'What is 3+3?', id: 'b' });
    const index = [
      recentEntryOf(b, 'file', '2026-01-02T00:00:00.000Z'),
      recentEntryOf(a, 'link', '2026-01-01T00:00:00.000Z'),
    ];
    expect((await storage.save(index, [a, b], [])).ok).toBe(true);

    const reopened = idbRecents(db);
    const loaded = await reopened.load();
    expect(loaded.ok && loaded.value.entries.map((e) => e.id)).toEqual(['b', 'a']);
    expect(loaded.ok && loaded.value.version).toBe(2);
    const trace = await reopened.loadTrace('a');
    expect(trace?.ok && trace.value.task.query).toBe('What is 2+2?');
    expect(await reopened.loadTrace('missing')).toBeNull();
  });

  it('deletes dropped traces and clears everything', async () => {
    const storage = idbRecents(freshDb());
    const a = minimalTrace({ query: 'q', id: 'a' });
    await storage.save([recentEntryOf(a, 'file', '2026-01-01T00:00:00.000Z')], [a], []);
    await storage.save([], [], ['a']);
    expect(await storage.loadTrace('a')).toBeNull();
    await storage.save([recentEntryOf(a, 'file', '2026-01-01T00:00:00.000Z')], [a], []);
    await storage.clear();
    const loaded = await storage.load();
    expect(loaded.ok && loaded.value).toEqual({ version: 2, entries: [] });
  });

  it('drops malformed stored entries and validates stored traces', async () => {
    const db = freshDb();
    const raw = createStore(db, 'recents');
    const good = recentEntryOf(minimalTrace({ query: 'q', id: 'good' }), 'file', '2026-01-01T00:00:00.000Z');
    await set('index', [good, { id: 3 }, 'junk'], raw);
    await set('trace:bad', { format: 'baton.trace/1', id: 'bad' }, raw);
    const storage = idbRecents(db);
    const loaded = await storage.load();
    expect(loaded.ok && loaded.value.entries.map((e) => e.id)).toEqual(['good']);
    // A bare array is the version-1 layout, which the library slice migrates.
    expect(loaded.ok && loaded.value.version).toBe(1);
    const bad = await storage.loadTrace('bad');
    expect(bad?.ok).toBe(false);
  });

  it('keeps thousands of entries: nothing is capped on the way in or out', async () => {
    const storage = idbRecents(freshDb());
    const traces = Array.from({ length: 1_200 }, (_, i) => minimalTrace({ query: `q${i}`, id: `t${i}` }));
    const index = traces.map((t) => recentEntryOf(t, 'file', '2026-01-01T00:00:00.000Z', 'big.json'));
    expect((await storage.save(index, traces, [])).ok).toBe(true);
    const loaded = await storage.load();
    expect(loaded.ok && loaded.value.entries).toHaveLength(1_200);
    expect((await storage.loadTrace('t1199'))?.ok).toBe(true);
  });
});

describe('readIndex', () => {
  it('reads both layouts and treats nothing stored as current', () => {
    const e = recentEntryOf(minimalTrace({ query: 'q', id: 'a' }), 'file', '2026-01-01T00:00:00.000Z');
    expect(readIndex([e])).toEqual({ version: 1, entries: [e] });
    expect(readIndex({ format: RECENTS_FORMAT, entries: [e, null] })).toEqual({ version: 2, entries: [e] });
    expect(readIndex(undefined)).toEqual({ version: 2, entries: [] });
    expect(readIndex({ format: 'other', entries: [e] }).entries).toEqual([]);
  });
});
