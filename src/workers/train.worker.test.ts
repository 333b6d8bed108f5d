import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { snapshotFromJson } from '../train/index.ts';
import { portEndpoint } from './rpc/endpoint.ts';
import { createTrainWorkerClient, type TrainWorkerClient } from './train.client.ts';
import type { TrainProgress } from './train.methods.ts';

/**
 * The training worker module itself, served on one end of a MessageChannel (its `self`), called by
 * the real client on the other: the structured-clone transport the browser uses, on the CPU backend.
 */
const { port1: page, port2: workerScope } = new MessageChannel();
let client: TrainWorkerClient;

beforeAll(async () => {
  vi.stubGlobal('self', workerScope);
  await import('./train.worker.ts');
  client = createTrainWorkerClient(() => portEndpoint(page));
});
afterAll(() => {
  page.close();
  vi.unstubAllGlobals();
});

const config = {
  preset: 'robustness',
  tasksPerIteration: 2,
  groupSize: 2,
  epochs: 1,
  minibatch: 32,
  seed: 3,
  evalEvery: 0,
} as const;

async function run(iterations: number, snapshotEvery = 1000): Promise<TrainProgress[]> {
  const reports: TrainProgress[] = [];
  const r = await client.run({ iterations, snapshotEvery }, { onProgress: (p) => reports.push(p) });
  expect(r.ok).toBe(true);
  return reports;
}

const metricsOf = (ps: TrainProgress[]) =>
  ps.flatMap((p) => (p.kind === 'iteration' ? [{ ...p.metrics, timings: undefined }] : []));

describe('train worker', () => {
  it('refuses to run before a start, as a value', async () => {
    const r = await client.run({ iterations: 1, snapshotEvery: 1 }, {});
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]).toMatchObject({ code: 'E_WORKER_FAILED', path: 'train.run' });
  });

  it('refuses a config the trainer would reject, naming the field', async () => {
    const r = await client.start({
      config: { algo: 'hrpo', groupSize: 1 },
      from: { kind: 'prior' },
      backend: 'cpu',
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.errors[0]?.code).toBe('E_WORKER_BAD_INPUT');
      expect(r.errors[0]?.message).toContain('groupSize');
    }
  });

  it('streams metrics each iteration and a snapshot every N; a resumed run continues bit-identically', async () => {
    const started = await client.start({ config, from: { kind: 'prior' }, backend: 'cpu' });
    expect(started).toMatchObject({ ok: true, value: { backend: 'cpu', iteration: 0, startName: 'prior' } });
    const straight = await run(3, 2);
    expect(straight.map((p) => p.kind)).toEqual([
      'iteration',
      'iteration',
      'snapshot',
      'iteration',
      'snapshot',
    ]);
    const snap = straight[2];
    expect(snap?.kind === 'snapshot' && snap.iteration).toBe(2);
    expect(metricsOf(straight).map((m) => m.iteration)).toEqual([1, 2, 3]);
    const eps = straight.flatMap((p) => (p.kind === 'iteration' ? [p.episodesPerSecond] : []));
    expect(eps.every((e) => e > 0)).toBe(true);

    // The snapshot after two iterations, as `baton.train/1` text, resumes where it left off.
    const parsed = snapshotFromJson((snap as Extract<TrainProgress, { kind: 'snapshot' }>).text ?? '');
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const at2 = parsed.snapshot;
    expect(at2.iteration).toBe(2);
    const resumed = await client.start({
      config: {},
      from: { kind: 'snapshot', snapshot: at2 },
      backend: 'cpu',
    });
    expect(resumed).toMatchObject({ ok: true, value: { iteration: 2 } });
    const third = metricsOf(await run(1));
    expect(third).toEqual(metricsOf(straight).slice(2));
  });

  it('reports a held-out greedy score every evalEvery iterations, without changing what is trained', async () => {
    await client.start({ config, from: { kind: 'prior' }, backend: 'cpu' });
    const plain = metricsOf(await run(4));
    await client.start({ config: { ...config, evalEvery: 2 }, from: { kind: 'prior' }, backend: 'cpu' });
    const reports = await run(4);
    const heldout = reports.flatMap((p) => (p.kind === 'heldout' ? [p] : []));
    expect(heldout.map((h) => h.iteration)).toEqual([2, 4]);
    for (const h of heldout) {
      expect(h.n).toBe(16);
      expect(h.accuracy).toBeGreaterThanOrEqual(0);
      expect(h.accuracy).toBeLessThanOrEqual(1);
    }
    // Each point follows its iteration's metrics.
    const kinds = reports.map((p) => (p.kind === 'iteration' ? `i${p.metrics.iteration}` : p.kind));
    expect(kinds.indexOf('heldout')).toBe(kinds.indexOf('i2') + 1);
    expect(metricsOf(reports)).toEqual(plain);
  });

  it('pauses when the run is cancelled: the iteration in flight finishes, the snapshot holds it', async () => {
    await client.start({ config, from: { kind: 'random', seed: 1 }, backend: 'cpu' });
    const pause = new AbortController();
    let seen = 0;
    const r = await client.run(
      { iterations: 1000, snapshotEvery: 1000 },
      {
        signal: pause.signal,
        onProgress: (p) => {
          if (p.kind === 'iteration') {
            seen = p.metrics.iteration;
            pause.abort();
          }
        },
      },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.code).toBe('E_WORKER_CANCELLED');
    const snap = await client.snapshot();
    expect(snap.ok).toBe(true);
    if (!snap.ok) return;
    expect(seen).toBe(1);
    // At most the one iteration that had started when the cancel arrived ran after the pause.
    expect(snap.value.iteration).toBeGreaterThanOrEqual(1);
    expect(snap.value.iteration).toBeLessThanOrEqual(2);
    expect(snap.value.start.name).toBe('random:1');
    const trained = await client.trained();
    expect(trained.ok && trained.value.meta?.iterations).toBe(snap.value.iteration);
  });

  it('evaluates prior, random and the current policy on the same held-out tasks', async () => {
    const progress: number[] = [];
    const r = await client.evaluate({ n: 6, seed: 5 }, { onProgress: (p) => progress.push(p.done) });
    expect(progress).toEqual([0, 1, 2, 3]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    for (const p of [r.value.prior, r.value.random, r.value.current]) {
      expect(p?.n).toBe(6);
      expect(p?.interval[0]).toBeLessThanOrEqual(p?.accuracy ?? -1);
      expect(p?.interval[1]).toBeGreaterThanOrEqual(p?.accuracy ?? 2);
    }
    expect(r.value.prior.tokens).toBeGreaterThan(0);
    // The structure of the same greedy designs, per axis and overall, agrees with the scores.
    const st = r.value.structure;
    expect(st.current).not.toBeNull();
    for (const [p, s] of [
      [r.value.prior, st.prior],
      [r.value.random, st.random],
    ] as const) {
      expect(s.all?.n).toBe(6);
      expect(s.all?.agents).toBeCloseTo(p.agents, 10);
      expect(s.all?.edges).toBeCloseTo(p.edges, 10);
      expect(
        Object.keys(s)
          .filter((k) => k !== 'all')
          .sort(),
      ).toEqual(Object.keys(p.perAxis).sort());
      for (const use of Object.values(s.all?.roleUse ?? {})) expect(use >= 0 && use <= 1).toBe(true);
    }
    // The prior's greedy designs are not the random policy's.
    expect(JSON.stringify(st.prior.all)).not.toBe(JSON.stringify(st.random.all));
  });

  it('has no device to lose on the CPU, and forgets the run on reset', async () => {
    expect(await client.loseDevice(0)).toEqual({ ok: true, value: { armed: false }, warnings: [] });
    expect((await client.reset()).ok).toBe(true);
    const r = await client.snapshot();
    expect(r.ok).toBe(false);
  });
});
