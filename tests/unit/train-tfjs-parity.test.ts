/**
 * `npm run bench:train-tfjs` times the trainer's update on the compute core against the TF.js
 * version in bench/train-tfjs/. The ratio means something only if both compute the same thing:
 * here, from the same checkpoint (the `prior` and a random one) and the same minibatch of steps
 * sampled from real constructions, both give the same joint log-probabilities, the same loss and
 * gradient norm, and the same parameters after one update (PPO objective, clipping, Adam).
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { minibatch } from '../../bench/train-tfjs/minibatch.ts';
import { sampleBatch, type SampledBatch } from '../../bench/train-tfjs/episodes.ts';
import { TfPolicy } from '../../bench/train-tfjs/tfjs-policy.ts';
import type { BackendChoice } from '../../src/gpu/index.ts';
import {
  DEFAULT_POOL,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../../src/policy/index.ts';
import { Learner, trainConfig } from '../../src/train/index.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const pool = DEFAULT_POOL;
const M = 32;
/** Real rows in the minibatch; the other M − n rows are padding, as in the trainer's last minibatch. */
const n = 27;
const config = trainConfig({ minibatch: M, lr: 1e-3 });
/**
 * Updates compared. Adam's first step moves every parameter by lr·sign(g) whatever the gradient's
 * size (and so whatever the clipping); from the second on, the moments, β₁, β₂, ε and the clip
 * scale of each step show in the parameters.
 */
const UPDATES = 3;

/** Largest |a − b| / max(1, |b|) over the first `count` entries. */
function worstGap(a: ArrayLike<number>, b: ArrayLike<number>, count = a.length): number {
  expect(a.length).toBeGreaterThanOrEqual(count);
  expect(b.length).toBeGreaterThanOrEqual(count);
  let worst = 0;
  for (let i = 0; i < count; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    worst = Math.max(worst, Math.abs(x - y) / Math.max(1, Math.abs(y)));
  }
  return worst;
}

beforeAll(async () => {
  await tf.setBackend('cpu');
});

describe.each([
  ['prior', () => priorCheckpoint(pool)],
  ['random', () => randomCheckpoint(pool, 11)],
])('the TF.js policy and update match the compute core (%s)', (_, make: () => PolicyCheckpoint) => {
  const checkpoint = make();
  let data: SampledBatch;
  beforeAll(async () => {
    data = await sampleBatch(checkpoint, pool, config, UPDATES * n, 5);
  });

  it('gives the same joint log-probabilities', async () => {
    expect(data.full.batch).toBeGreaterThanOrEqual(n);
    const learner = await Learner.create(checkpoint, checkpoint, pool, config, cpu);
    const tfp = new TfPolicy(tf, checkpoint, config, M);
    try {
      const core = await learner.logProbs(data.full);
      const pick = Array.from({ length: n }, (_, i) => i);
      const mine = await tfp.logProbs(minibatch(checkpoint.config, pool, data.full, pick, M));
      expect(worstGap(mine, core, n)).toBeLessThan(1e-5);
      // Padding rows allow only EXIT and take it: log π = 0.
      for (let b = n; b < M; b++) expect(Math.abs(mine[b] as number)).toBeLessThan(1e-6);
      // The comparison is not vacuous: the rows differ from each other and are not all 0.
      expect(new Set(Array.from(core.slice(0, n), (x) => x.toFixed(3))).size).toBeGreaterThan(3);
    } finally {
      learner.dispose();
      tfp.dispose();
    }
  });

  it('gives the same loss, gradient norm and parameters after PPO updates', async () => {
    const learner = await Learner.create(checkpoint, checkpoint, pool, config, cpu);
    const tfp = new TfPolicy(tf, checkpoint, config, M);
    try {
      const full = data.full;
      expect(full.batch).toBeGreaterThanOrEqual(UPDATES * n);
      const logp = await learner.logProbs(full);
      // π_old off π_θ by ±0.3 nats on two rows in three, so that the clip zeroes some gradients.
      const oldLogp = logp.map((x, i) => x + ((i % 3) - 1) * 0.3);
      const refLogp = await learner.logProbs(full, 'reference');
      const pad = (xs: number[]): number[] => xs.concat(Array<number>(M - xs.length).fill(0));
      for (let u = 0; u < UPDATES; u++) {
        const pick = Array.from({ length: n }, (_, i) => u * n + i);
        const rowsOf = (xs: Float64Array): number[] => pad(pick.map((r) => xs[r] as number));
        const core = await learner.update(full, pick, oldLogp, refLogp, data.advantages);
        const mine = await tfp.update(
          minibatch(checkpoint.config, pool, full, pick, M),
          rowsOf(oldLogp),
          rowsOf(refLogp),
          rowsOf(data.advantages),
        );
        expect(mine.clipFraction).toBe(core.clipFraction);
        expect(Math.abs(mine.loss - core.loss)).toBeLessThan(1e-4 * Math.max(1, Math.abs(core.loss)));
        expect(Math.abs(mine.gradNorm - core.gradNorm)).toBeLessThan(1e-3 * core.gradNorm);
        expect(Math.abs(mine.nodeEntropy - core.nodeEntropy)).toBeLessThan(1e-4);
        expect(core.gradNorm).toBeGreaterThan(0);
        if (u === 0) expect(core.clipFraction).toBeGreaterThan(0);
      }

      const before = checkpoint.params;
      const after = (await learner.snapshot('after')).params;
      const theirs = await tfp.params();
      let moved = 0;
      let diff2 = 0;
      let move2 = 0;
      for (const [name, values] of Object.entries(after)) {
        const t = theirs[name] as Float32Array;
        const b = before[name] as number[];
        // Adam moves each parameter by about lr (1e-3) per step: compare the moves.
        for (let i = 0; i < values.length; i++) {
          const dc = (values[i] as number) - (b[i] as number);
          const dt = (t[i] as number) - (b[i] as number);
          if (dc !== 0) moved++;
          diff2 += (dc - dt) ** 2;
          move2 += dc ** 2;
          expect(Math.abs(dc - dt), `${name}[${i}]`).toBeLessThan(5e-5);
        }
      }
      expect(Math.sqrt(diff2 / move2)).toBeLessThan(1e-3);
      expect(moved).toBeGreaterThan(100);
    } finally {
      learner.dispose();
      tfp.dispose();
    }
  });
});
