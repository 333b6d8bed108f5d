import 'fake-indexeddb/auto';
import { createStore, set } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import { minimalTrace } from '../../core/trace-builders.ts';
import { recentEntryOf } from '../slices/library.ts';
import { idbRecents } from './recents.ts';

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
    expect(loaded.ok && loaded.value.map((e) => e.id)).toEqual(['b', 'a']);
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
    expect(loaded.ok && loaded.value).toEqual([]);
  });

  it('drops malformed stored entries and validates stored traces', async () => {
    const db = freshDb();
    const raw = createStore(db, 'recents');
    const good = recentEntryOf(minimalTrace({ query: 'q', id: 'good' }), 'file', '2026-01-01T00:00:00.000Z');
    await set('index', [good, { id: 3 }, 'junk'], raw);
    await set('trace:bad', { format: 'baton.trace/1', id: 'bad' }, raw);
    const storage = idbRecents(db);
    const loaded = await storage.load();
    expect(loaded.ok && loaded.value.map((e) => e.id)).toEqual(['good']);
    const bad = await storage.loadTrace('bad');
    expect(bad?.ok).toBe(false);
  });
});
