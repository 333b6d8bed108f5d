import 'fake-indexeddb/auto';
import { createStore, set } from 'idb-keyval';
import { describe, expect, it } from 'vitest';
import { DEFAULT_POOL, priorCheckpoint } from '../../policy/index.ts';
import {
  SNAPSHOT_FORMAT,
  SNAPSHOT_IDB,
  snapshotToJson,
  trainConfig,
  type TrainerSnapshot,
} from '../../train/index.ts';
import { idbSnapshots } from './train-snapshots.ts';

const snapshot = (): TrainerSnapshot => {
  const cp = priorCheckpoint(DEFAULT_POOL);
  return {
    format: SNAPSHOT_FORMAT,
    config: trainConfig({ preset: 'depth' }),
    start: cp,
    checkpoint: cp,
    optimizer: {
      params: Float32Array.of(1, 2),
      m: Float32Array.of(0.5, 0),
      v: Float32Array.of(0, 0.25),
      t: 3,
    },
    baseline: null,
    iteration: 0,
    updates: 3,
    history: [],
  };
};

describe('training snapshots in IndexedDB', () => {
  it('round-trip, Float32Arrays included; none saved reads as null', async () => {
    const s = idbSnapshots('t-roundtrip');
    expect(await s.load()).toEqual({ ok: true, value: null, warnings: [] });
    expect((await s.save(snapshot())).ok).toBe(true);
    const back = await s.load();
    expect(back.ok).toBe(true);
    if (!back.ok || !back.value) throw new Error('no snapshot');
    expect(back.value.optimizer?.m).toEqual(Float32Array.of(0.5, 0));
    expect(back.value.config.preset).toBe('depth');
    expect((await s.clear()).ok).toBe(true);
    expect((await s.load()).ok && (await s.load())).toMatchObject({ value: null });
  });

  it('a damaged record is E_TRAIN_STORED naming the broken fields, and stays where it was', async () => {
    const bad = {
      ...snapshot(),
      optimizer: { params: [1, 2], m: Float32Array.of(1), v: Float32Array.of(1), t: -1 },
    };
    await set('latest', bad, createStore('t-damaged', 'snapshots'));
    const s = idbSnapshots('t-damaged');
    const r = await s.load();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors[0]?.code).toBe('E_TRAIN_STORED');
    expect(r.errors[0]?.message).toContain('optimizer.params');
    // Reading it again gives the same answer: nothing was removed or rewritten.
    const again = await s.load();
    expect(again.ok).toBe(false);
  });

  it('reads back the JSON text the page stores and the Blob the training worker writes', async () => {
    const s = idbSnapshots('t-text');
    expect((await s.saveText(snapshotToJson({ ...snapshot(), iteration: 0 }))).ok).toBe(true);
    const text = await s.load();
    expect(text.ok && text.value?.optimizer?.v).toEqual(Float32Array.of(0, 0.25));
    // As train.worker.ts writes it: a Blob under the same key.
    const blob = new Blob([snapshotToJson(snapshot())], { type: 'application/json' });
    await set(SNAPSHOT_IDB.key, blob, createStore('t-text', SNAPSHOT_IDB.store));
    const back = await s.load();
    expect(back.ok && back.value?.config.preset).toBe('depth');
  });
});
