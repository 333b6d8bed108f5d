/**
 * One checkpoint and minibatch size, timed on the compute core (`choice`) and on TF.js (`tf`, its
 * backend already set): the trainer update, the graph step alone and the forward pass alone (see
 * bench.ts). Shared by the Node run and the Chromium page (bench/train-tfjs/page).
 */
import type * as TF from '@tensorflow/tfjs';
import type { BackendChoice } from '../../src/gpu/index.ts';
import { DEFAULT_POOL, type PolicyCheckpoint } from '../../src/policy/index.ts';
import { Learner, trainConfig } from '../../src/train/index.ts';
import { timePair, type Timing } from '../gpu-common.ts';
import { sampleBatch } from './episodes.ts';
import { minibatch } from './minibatch.ts';
import { TfPolicy } from './tfjs-policy.ts';

const pool = DEFAULT_POOL;

export type Measure = 'update' | 'step' | 'forward';

export interface Row {
  /** Where both sides ran: `cpu (node)` or `webgpu (chromium)`. */
  backend: string;
  checkpoint: string;
  minibatch: number;
  measure: Measure;
  baton_ms: number;
  tfjs_ms: number;
  /** TF.js time / Baton time: above 1, the compute core is faster. */
  ratio: number;
  /** The WebGPU adapter (browser rows). */
  adapter?: string;
}

export async function measure(
  tf: typeof TF,
  choice: BackendChoice,
  backend: string,
  checkpoint: PolicyCheckpoint,
  M: number,
  timing: Timing,
  log: (line: string) => void,
): Promise<Row[]> {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(checkpoint, pool, config, M, 17);
  // A second batch for the forward rows, timed in turn with the first (below).
  const other = (await sampleBatch(checkpoint, pool, config, M, 18)).full;
  const full = data.full;
  log(`${checkpoint.name}, minibatch ${M}: ${full.batch} steps from ${data.episodes} constructions`);
  const learner = await Learner.create(checkpoint, checkpoint, pool, config, choice);
  // Log π passes of one minibatch each (the trainer runs them over up to Learner.passRows rows).
  learner.passRows = 0;
  const tfp = new TfPolicy(tf, checkpoint, config, M);
  const rows: Row[] = [];
  const row = (m: Measure, [baton, tfjs]: [number, number]): void => {
    const r = {
      backend,
      checkpoint: checkpoint.name,
      minibatch: M,
      measure: m,
      baton_ms: baton,
      tfjs_ms: tfjs,
      ratio: tfjs / baton,
    };
    log(JSON.stringify(r));
    rows.push(r);
  };
  try {
    const pick = Array.from({ length: M }, (_, i) => i);
    const logp = await learner.logProbs(full);
    const oldLogp = logp.map((x, i) => x + ((i % 3) - 1) * 0.1);
    const refLogp = await learner.logProbs(full, 'reference');
    const rowsOf = (xs: Float64Array): number[] => pick.map((r) => xs[r] as number);
    const coreUpdate = () => learner.update(full, pick, oldLogp, refLogp, data.advantages);
    const tfUpdate = () =>
      tfp.update(
        minibatch(checkpoint.config, pool, full, pick, M),
        rowsOf(oldLogp),
        rowsOf(refLogp),
        rowsOf(data.advantages),
      );
    const [a, b] = [await coreUpdate(), await tfUpdate()];
    const gap = Math.abs(a.gradNorm - b.gradNorm) / a.gradNorm;
    if (!(gap < 1e-3)) throw new Error(`first update: gradient norms differ by ${gap} (relative)`);
    row('update', await timePair(coreUpdate, tfUpdate, timing));

    // The graph step alone, on the minibatch the last update left in the model (whose graph now
    // computes the objective's per-step weights itself, from the inputs of that update) / uploaded
    // once to TF.js with those weights precomputed.
    const coef = Float32Array.from(pick, (r) => -(data.advantages[r] as number) / M);
    const valid = new Float32Array(M).fill(1 / M);
    const feed = tfp.feed(minibatch(checkpoint.config, pool, full, pick, M));
    const tc = tf.tensor1d(coef);
    const tv = tf.tensor1d(valid);
    row(
      'step',
      await timePair(
        () => learner.model.step(),
        () => tfp.graphStep(feed, tc, tv),
        timing,
      ),
    );
    // Log π of every row of two batches, per minibatch pass, as the trainer's old-policy passes run
    // it: each pass uploads its minibatch and reads the joint log π back (the compute core's pass
    // pruned to it), on both sides. The batches take turns, so that no call repeats the passes of
    // the one before: a forward pass skips the ops whose inputs did not change (RunOptions.prune),
    // and a batch of a single pass, timed again and again, would time next to nothing.
    const batches = [full, other];
    const passes = batches.reduce((k, b) => k + Math.ceil(b.batch / M), 0);
    const picks = batches.map((b) =>
      Array.from({ length: Math.ceil(b.batch / M) }, (_, p) =>
        Array.from({ length: Math.min(M, b.batch - p * M) }, (_, i) => p * M + i),
      ),
    );
    const [bf, tfw] = await timePair(
      async () => {
        for (const b of batches) await learner.logProbs(b);
      },
      async () => {
        for (const [k, b] of batches.entries())
          for (const pk of picks[k] as number[][])
            await tfp.logProbs(minibatch(checkpoint.config, pool, b, pk, M));
      },
      timing,
    );
    row('forward', [bf / passes, tfw / passes]);
    tf.dispose([tc, tv]);
    tfp.release(feed);
  } finally {
    learner.dispose();
    tfp.dispose();
  }
  return rows;
}
