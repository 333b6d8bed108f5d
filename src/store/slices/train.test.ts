import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { create } from 'zustand';
import { parseSnapshot } from '../../train/index.ts';
import { openChannelTrainWorker } from '../../workers/index.ts';
import { memoryCheckpoints } from '../services/policy-checkpoints.ts';
import { configureTrain, type TrainEnv } from '../services/train.ts';
import { memorySnapshots } from '../services/train-snapshots.ts';
import { createBatonState, resetBaton, useBaton, type BatonState } from '../store.ts';
import { configureBuild, type BuildEnv } from './build.ts';
import { checkTrainForm, DEFAULT_TRAIN_FORM, withField } from './train-form.ts';
import { columns, createRing, latest, pushRow, roleColumns, setAt } from './train-ring.ts';

const row = (it: number, reward: number): Float64Array => {
  const r = new Float64Array(16).fill(0);
  r[0] = it;
  r[1] = reward;
  r[4] = NaN;
  return r;
};

describe('metric ring buffer', () => {
  it('keeps the newest rows past its capacity, oldest first, NaN as gaps', () => {
    const ring = createRing(3);
    for (let i = 1; i <= 5; i++)
      pushRow(ring, row(i, i / 10), i === 2 ? { Solver: 1 } : { Verifier: 0.5, Solver: 0.5 });
    const c = columns(ring);
    expect(c.iteration).toEqual([3, 4, 5]);
    expect(c.reward).toEqual([0.3, 0.4, 0.5]);
    expect(c.heldout).toEqual([null, null, null]);
    expect(latest(ring, 'reward')).toBe(0.5);
    expect(roleColumns(ring)).toEqual({ Verifier: [0.5, 0.5, 0.5], Solver: [0.5, 0.5, 0.5] });
    expect(setAt(ring, 4, 'heldout', 0.75)).toBe(true);
    expect(setAt(ring, 1, 'heldout', 0.75)).toBe(false);
    expect(columns(ring).heldout).toEqual([null, 0.75, null]);
  });

  it('refuses a capacity below one', () => {
    expect(() => createRing(0)).toThrow(/capacity/);
  });
});

describe('settings form', () => {
  it("files the trainer schema's messages under their fields", () => {
    expect(checkTrainForm(DEFAULT_TRAIN_FORM).ok).toBe(true);
    const bad = withField(withField(DEFAULT_TRAIN_FORM, 'groupSize', 1), 'actionReward.bonusDecay', 0);
    expect(bad.actionReward.gain).toBe(DEFAULT_TRAIN_FORM.actionReward.gain);
    const c = checkTrainForm(bad);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.byField.groupSize?.[0]).toMatch(/at least 2/);
    expect(Object.keys(c.byField)).toContain('actionReward.bonusDecay');
    expect(checkTrainForm(withField(DEFAULT_TRAIN_FORM, 'lr', NaN)).ok).toBe(false);
  });
});

// ---------------------------------------------------------------- the slice with the real worker

const client = await openChannelTrainWorker();
let previousTrain: TrainEnv;
let previousBuild: BuildEnv;
const storage = memoryCheckpoints();

beforeAll(() => {
  previousBuild = configureBuild({ storage, prefer: 'cpu' });
});
afterAll(() => {
  configureTrain(previousTrain);
  configureBuild(previousBuild);
  client.close();
});
beforeEach(() => resetBaton());

const tiny = {
  preset: 'depth',
  tasksPerIteration: 2,
  groupSize: 2,
  epochs: 1,
  minibatch: 32,
  seed: 2,
} as const;

const until = async (ok: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

describe('train slice', () => {
  it('does not start with a bad setting, and says which', async () => {
    const snapshots = memorySnapshots();
    previousTrain = configureTrain({ client: () => client, snapshots, snapshotEvery: 2 });
    const s = useBaton.getState();
    s.setTrainField('clipEps', 2);
    expect(useBaton.getState().trainFormProblems.clipEps?.length).toBe(1);
    await useBaton.getState().startTraining();
    expect(useBaton.getState().trainStatus).toBe('idle');
    expect(useBaton.getState().trainProblems[0]?.code).toBe('E_TRAIN_CONFIG');
    expect(useBaton.getState().trainProblems[0]?.message).toContain('clipEps');
  });

  it('a damaged saved snapshot is a clear error that loses nothing else', async () => {
    const damaged = { format: 'baton.train/1', config: {}, iteration: -1 };
    const snapshots = memorySnapshots(damaged);
    configureTrain({ client: () => client, snapshots });
    await useBaton.getState().initTrain();
    const st = useBaton.getState();
    expect(st.trainProblems[0]?.code).toBe('E_TRAIN_STORED');
    expect(st.trainProblems[0]?.message).toMatch(/damaged/);
    expect(st.trainStatus).toBe('idle');
    expect(st.trainResumable).toBeNull();
    expect(snapshots.raw).toEqual(damaged);
  });

  it('trains, pauses with a saved snapshot, resumes after a reload, and hands the policy to Build', async () => {
    const snapshots = memorySnapshots();
    configureTrain({ client: () => client, snapshots, snapshotEvery: 2 });
    for (const [k, v] of Object.entries(tiny)) useBaton.getState().setTrainField(k, v);
    await useBaton.getState().startTraining();
    expect(useBaton.getState().trainBackend?.backend).toBe('cpu');
    await until(() => useBaton.getState().trainIteration >= 2, 'two iterations');
    await useBaton.getState().pauseTraining();
    const paused = useBaton.getState();
    expect(paused.trainStatus).toBe('paused');
    expect(paused.trainSavedAt).toBe(paused.trainIteration);
    expect(paused.trainRing.length).toBe(paused.trainIteration);
    const saved = parseSnapshot(snapshots.raw);
    expect(saved.ok && saved.snapshot.iteration).toBe(paused.trainIteration);
    expect(saved.ok && saved.snapshot.config.preset).toBe('depth');

    // A reload: a fresh store (fresh closures), the same storage; the worker starts from the snapshot.
    const reloaded = create<BatonState>()(createBatonState);
    await reloaded.getState().initTrain();
    const r = reloaded.getState();
    expect(r.trainResumable?.iteration).toBe(paused.trainIteration);
    expect(r.trainStatus).toBe('paused');
    expect(r.trainRing.length).toBe(paused.trainIteration);
    expect(r.trainForm.preset).toBe('depth');
    await r.stepTraining();
    expect(reloaded.getState().trainIteration).toBe(paused.trainIteration + 1);
    expect(reloaded.getState().trainLatest?.iteration).toBe(paused.trainIteration + 1);

    const name = await reloaded.getState().useTrainedInBuild();
    expect(name).toMatch(/^trained:grpo:depth:/);
    expect(reloaded.getState().buildCheckpoints).toContain(name);
    expect(reloaded.getState().buildForm.policy).toEqual({ kind: 'checkpoint', name });
    const kept = await storage.load(name ?? '');
    expect(kept.ok && kept.value.meta?.iterations).toBe(paused.trainIteration + 1);

    const file = await reloaded.getState().exportTrainSnapshot();
    expect(file?.name).toContain('depth');
    await reloaded.getState().resetTraining();
    expect(snapshots.raw).toBeUndefined();
    expect(reloaded.getState().trainRing.length).toBe(0);
    await reloaded.getState().importTrainSnapshot({
      name: 'x.json',
      size: file?.text.length ?? 0,
      text: async () => file?.text ?? '',
    });
    expect(reloaded.getState().trainIteration).toBe(paused.trainIteration + 1);
    await reloaded.getState().importTrainSnapshot({ name: 'bad.json', size: 2, text: async () => '{}' });
    expect(reloaded.getState().trainProblems[0]?.code).toBe('E_TRAIN_FILE');
  });

  it('puts what an auto rollout-thread trial found on the backend line once the trial is over', async () => {
    // Rollout workers as a four-core machine starts them, and a clock that moves 1 ms per reading:
    // the workers are no faster, so this thread keeps the rollouts and the line says so.
    let t = 0;
    const trial = await openChannelTrainWorker({ now: () => (t += 1), rolloutCores: 4 });
    try {
      configureTrain({ client: () => trial, snapshots: memorySnapshots(), snapshotEvery: 100 });
      for (const [k, v] of Object.entries(tiny)) useBaton.getState().setTrainField(k, v);
      useBaton.getState().setTrainField('evalEvery', 0);
      useBaton.getState().setTrainThreads('rollouts', 'auto');
      await useBaton.getState().startTraining();
      expect(useBaton.getState().trainBackend?.reason).toMatch(
        /; rollouts on 3 threads \(timing them against this thread alone\)$/,
      );
      await until(() => useBaton.getState().trainIteration >= 6, 'six iterations');
      await useBaton.getState().pauseTraining();
      expect(useBaton.getState().trainBackend?.reason).toMatch(
        /; rollouts on this thread \(1\.0 ms per iteration on 3 threads, 1\.0 ms on this one alone\)$/,
      );
      expect(useBaton.getState().trainBackend?.backend).toBe('cpu');
    } finally {
      trial.close();
    }
  });
});
