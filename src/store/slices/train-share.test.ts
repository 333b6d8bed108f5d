import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeJsonLink } from '../../share/index.ts';
import type { TrainerSnapshot } from '../../train/index.ts';
import { openChannelTrainWorker } from '../../workers/index.ts';
import { memoryCheckpoints } from '../services/policy-checkpoints.ts';
import { configureTrain, type TrainEnv } from '../services/train.ts';
import { memorySnapshots } from '../services/train-snapshots.ts';
import { buildRunLink, readRunLink, rerunStart, rerunVerdict } from '../services/train-share.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureBuild, type BuildEnv } from './build.ts';
import { recordRing } from './train-share.ts';
import { columns } from './train-ring.ts';

/**
 * A run's share link and its read-only view, with the real training worker's handlers over a
 * MessageChannel on the CPU backend: the link made from a real 2-iteration run, its fallback
 * without parameters when over the budget, bad links as clear errors, the CPU re-run reproducing
 * every recorded number, and a tampered record naming its first difference.
 */
const client = await openChannelTrainWorker();
const storage = memoryCheckpoints();
let previousTrain: TrainEnv;
let previousBuild: BuildEnv;

const tiny = {
  preset: 'depth',
  tasksPerIteration: 2,
  groupSize: 2,
  epochs: 1,
  minibatch: 32,
  seed: 4,
} as const;

beforeAll(() => {
  previousBuild = configureBuild({ storage, prefer: 'cpu' });
  previousTrain = configureTrain({ client: () => client, snapshots: memorySnapshots(), snapshotEvery: 1 });
});
afterAll(() => {
  configureTrain(previousTrain);
  configureBuild(previousBuild);
  client.close();
});
beforeEach(() => resetBaton());

const BASE = 'http://localhost:5173/baton/';

/** Two iterations from the prior, stepped through the slice. */
async function trainTwo(): Promise<TrainerSnapshot> {
  for (const [k, v] of Object.entries(tiny)) useBaton.getState().setTrainField(k, v);
  useBaton.getState().setTrainFrom({ kind: 'prior' });
  useBaton.getState().setTrainCompute('cpu');
  await useBaton.getState().startTraining();
  await useBaton.getState().pauseTraining();
  while (useBaton.getState().trainIteration < 2) await useBaton.getState().stepTraining();
  await useBaton.getState().pauseTraining();
  const s = await client.snapshot();
  if (!s.ok) throw new Error('no snapshot');
  return s.value;
}

describe('run share link', () => {
  let snapshot: TrainerSnapshot;
  beforeAll(async () => {
    snapshot = await trainTwo();
  }, 60_000);

  it('carries the trained parameters when they fit, and rebuilds them for Build', async () => {
    const link = await useBaton.getState().shareTrainRun(`${BASE}#/train`);
    expect(link?.params).toBe('included');
    expect(link?.url.startsWith(`${BASE}#r=1.`)).toBe(true);
    expect(link?.overBudget).toBe(false);
    useBaton.getState().openTrainRunLink(link?.url ?? '');
    const shared = useBaton.getState().trainShared;
    expect(shared && 'record' in shared && shared.record.iterations).toBe(snapshot.iteration);
    expect(shared && 'record' in shared && shared.record.checkpoint?.encoding).toBe('int8-delta/1');
    const name = await useBaton.getState().useSharedInBuild();
    expect(name).toBe(`shared:grpo:depth:${snapshot.iteration}`);
    const kept = await storage.load(name ?? '');
    expect(kept.ok && kept.value.meta?.trainedFrom).toBe('prior');
  });

  it('falls back to a link without parameters over the budget, and says so', () => {
    const full = buildRunLink(snapshot, null, BASE);
    const small = buildRunLink(snapshot, null, BASE, full.chars - 1);
    expect(small.params).toBe('too-large');
    expect(small.chars).toBeLessThan(full.chars);
    expect(small.overBudget).toBe(false);
    const r = readRunLink(small.url);
    expect(r.ok && r.value.checkpoint).toBeUndefined();
    expect(r.ok && r.value.curves.meanReward).toEqual(snapshot.history.map((m) => m.meanReward));
    // Still over even without them: flagged, never silently cut.
    expect(buildRunLink(snapshot, null, BASE, 10)).toMatchObject({ params: 'too-large', overBudget: true });
  });

  it('refuses a run longer than a record holds, and says what to do instead', async () => {
    const long = { ...snapshot, history: Array.from({ length: 5_001 }, () => snapshot.history[0]!) };
    const previous = configureTrain({
      client: () => ({ ...client, snapshot: () => Promise.resolve({ ok: true, value: long, warnings: [] }) }),
    });
    try {
      await trainTwo().catch(() => undefined);
      expect(await useBaton.getState().shareTrainRun(BASE)).toBeNull();
      expect(useBaton.getState().trainProblems[0]?.code).toBe('E_TRAIN_LINK');
      expect(useBaton.getState().trainProblems[0]?.message).toMatch(/at most 5000 iterations .* 5001/);
    } finally {
      configureTrain(previous);
    }
  });

  it('a start that is not built in gives a link without parameters that cannot be re-run', () => {
    const custom = { ...snapshot, start: { ...snapshot.start, name: 'my-checkpoint' } };
    const link = buildRunLink(custom, null, BASE);
    expect(link.params).toBe('not-rebuildable');
    const r = readRunLink(link.url);
    expect(r.ok).toBe(true);
    if (r.ok) expect(rerunStart(r.value)).toBeNull();
  });

  it('bad links are clear errors, shown instead of a run', () => {
    const s = useBaton.getState();
    s.openTrainRunLink('#r=1.%%%not-base64');
    let shared = useBaton.getState().trainShared;
    expect(shared && 'problems' in shared && shared.problems[0]?.code).toBe('E_LINK');
    s.openTrainRunLink('#r=7.abc');
    shared = useBaton.getState().trainShared;
    expect(shared && 'problems' in shared && shared.problems[0]?.message).toMatch(/format 7/);
    // Valid link bytes, not a run: the schema's complaint, with its path.
    s.openTrainRunLink(encodeJsonLink({ format: 'baton.trainrun/1', iterations: -1 }, 'r').fragment);
    shared = useBaton.getState().trainShared;
    expect(shared && 'problems' in shared && shared.problems[0]?.code).toBe('E_TRAIN_LINK');
    expect(shared && 'problems' in shared && shared.problems[0]?.message).toMatch(/iterations/);
  });

  it('re-runs on the CPU bit-identically, and names the first difference of a tampered record', async () => {
    const link = buildRunLink(snapshot, null, BASE);
    useBaton.getState().openTrainRunLink(link.url);
    await useBaton.getState().rerunSharedRun();
    const rerun = useBaton.getState().trainRerun;
    expect(rerun).toEqual({
      status: 'done',
      exact: true,
      text: `reproduced exactly: ${snapshot.iteration} iterations, every number equal`,
    });

    const r = readRunLink(link.url);
    if (!r.ok) throw new Error('unreadable');
    const tampered = structuredClone(r.value);
    (tampered.curves.kl as number[])[1] = (tampered.curves.kl[1] as number) + 1e-9;
    const again = await client.rerun({ config: r.value.config, from: { kind: 'prior' }, iterations: 2 });
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(rerunVerdict(r.value, again.value).exact).toBe(true);
    const v = rerunVerdict(tampered, again.value);
    expect(v.exact).toBe(false);
    expect(v.text).toMatch(/^first difference at iteration 2, kl: recorded /);
  }, 60_000);

  it('draws a record as the charts’ ring', () => {
    const r = readRunLink(buildRunLink(snapshot, null, BASE).url);
    if (!r.ok) throw new Error('unreadable');
    const c = columns(recordRing(r.value));
    expect(c.iteration).toEqual(snapshot.history.map((m) => m.iteration));
    expect(c.reward).toEqual(snapshot.history.map((m) => m.meanReward));
    expect(c.eps.every((x) => x === null)).toBe(true);
  });
});

describe('ablation study through the slice', () => {
  it('refuses bad settings by name, runs a small study, and cancels back to idle', async () => {
    for (const [k, v] of Object.entries(tiny)) useBaton.getState().setTrainField(k, v);
    useBaton.getState().setTrainCompute('cpu');
    const s = useBaton.getState();
    s.setAblationSettings({ seeds: 0 });
    await s.startAblation();
    let a = useBaton.getState().trainAblation;
    expect(a.status === 'error' && a.problems[0]?.code).toBe('E_TRAIN_ABLATION');
    expect(a.status === 'error' && a.problems[0]?.message).toMatch(/seeds/);
    s.setAblationSettings({ seeds: 2, iterations: 1, evalN: 2, variants: [] });
    await s.startAblation();
    a = useBaton.getState().trainAblation;
    expect(a.status === 'error' && a.problems[0]?.message).toMatch(/at least one variant/);

    s.setAblationSettings({ variants: ['grpo'] });
    const seen: string[] = [];
    const stop = useBaton.subscribe((st) => {
      const p = st.trainAblation.status === 'running' ? st.trainAblation.progress : null;
      if (p) seen.push(`${p.variant}/${p.seed}/${p.iteration}`);
    });
    await s.startAblation();
    stop();
    a = useBaton.getState().trainAblation;
    expect(a.status).toBe('done');
    if (a.status !== 'done') return;
    expect(a.study.seeds).toEqual([tiny.seed, tiny.seed + 1]);
    expect(a.study.variants.map((v) => [v.variant, v.seeds])).toEqual([['grpo', 2]]);
    expect(seen).toEqual([
      `grpo/${tiny.seed}/1`,
      `grpo/${tiny.seed}/2`,
      `grpo/${tiny.seed + 1}/1`,
      `grpo/${tiny.seed + 1}/2`,
    ]);

    s.setAblationSettings({ iterations: 200, variants: ['hrpo', 'grpo', 'reinforce'] });
    const running = s.startAblation();
    s.cancelAblation();
    await running;
    expect(useBaton.getState().trainAblation).toEqual({ status: 'idle' });
  }, 60_000);
});
