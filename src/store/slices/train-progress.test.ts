import { describe, expect, it } from 'vitest';
import type { IterationMetrics } from '../../train/index.ts';
import type { TrainProgress } from '../services/train.ts';
import { createProgressBatch, type ProgressPatch } from './train-progress.ts';
import { columns, createRing } from './train-ring.ts';

const metrics = (iteration: number): IterationMetrics =>
  ({
    iteration,
    meanReward: iteration / 10,
    rewardStd: 0,
    accuracy: 0.5,
    tokens: 100,
    agents: 2,
    edges: 1,
    depth: 2,
    roles: { Solver: 1 },
    samples: [],
    update: { nodeEntropy: 1, edgeEntropy: 1, kl: 0, clipFraction: 0, gradNorm: 1, loss: 0 },
  }) as unknown as IterationMetrics;
const it_ = (i: number) =>
  ({ kind: 'iteration', metrics: metrics(i), episodesPerSecond: 10, ms: 5 }) as Extract<
    TrainProgress,
    { kind: 'iteration' }
  >;

describe('progress batching', () => {
  it('applies every report waiting at the next frame in one update, held-out points on their rows', () => {
    const ring = createRing();
    const patches: ProgressPatch[] = [];
    const frames: (() => void)[] = [];
    let version = 0;
    let t = 0;
    const batch = createProgressBatch({
      ring: () => ring,
      version: () => version,
      apply: (p) => {
        patches.push(p);
        version = p.trainRingVersion;
      },
      frame: (run) => {
        frames.push(run);
        return () => undefined;
      },
      now: () => t,
    });
    for (const i of [1, 2, 3]) batch.push(it_(i));
    batch.push({ kind: 'heldout', iteration: 2, n: 16, accuracy: 0.75, reward: 0.5 });
    expect(frames).toHaveLength(1);
    expect(patches).toHaveLength(0);
    frames[0]?.();
    expect(patches).toHaveLength(1);
    expect(patches[0]).toMatchObject({ trainRingVersion: 1, trainIteration: 3 });
    expect(patches[0]?.trainLatest?.iteration).toBe(3);
    expect(columns(ring).iteration).toEqual([1, 2, 3]);
    expect(columns(ring).heldout).toEqual([null, 0.75, null]);

    // Within a second the sampled designs are not refreshed; a final flush shows the newest.
    t = 500;
    batch.push(it_(4));
    frames[1]?.();
    expect(patches[1]?.trainIteration).toBe(4);
    expect(patches[1]?.trainLatest).toBeUndefined();
    batch.flush(true);
    expect(patches[2]?.trainLatest?.iteration).toBe(4);

    batch.push(it_(5));
    batch.drop();
    batch.flush();
    expect(columns(ring).iteration).toEqual([1, 2, 3, 4]);
  });
});
