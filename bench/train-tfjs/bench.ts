/**
 * `npm run bench:train-tfjs`: one training iteration of the construction policy on the compute
 * core's CPU backend vs the same network and update in TF.js on its CPU backend (plain JavaScript
 * on the CPU, both), in Node, on minibatches of steps from real sampled constructions. Writes
 * bench/results/train-tfjs.json and the "Training step vs TF.js" section of docs/benchmarks.md.
 *
 * Measured per checkpoint (`prior`, `random:11`) and minibatch size (64, 256):
 * - update: what the trainer runs per minibatch — `Learner.update` (minibatch inputs, forward pass
 *   read back, PPO objective in TypeScript, forward + backward + clipping + Adam) vs
 *   `TfPolicy.update` (the same steps in TF.js, bench/train-tfjs/tfjs-policy.ts);
 * - step: the graph step alone on inputs already uploaded (forward + backward + clip + Adam);
 * - forward: the forward pass alone, joint log-probabilities read back.
 * Both sides are timed alternately (a, b, a, b, …) so that load from other processes hits both.
 * Equality of the two is a unit test (tests/unit/train-tfjs-parity.test.ts); this script checks
 * the first update's gradient norm again before it times anything.
 *
 *   npm run bench:train-tfjs [-- --quick]     (--quick: minibatch 64 and the prior only)
 */
import * as tf from '@tensorflow/tfjs';
import type { BackendChoice } from '../../src/gpu/index.ts';
import {
  DEFAULT_POOL,
  priorCheckpoint,
  randomCheckpoint,
  type PolicyCheckpoint,
} from '../../src/policy/index.ts';
import { Learner, trainConfig } from '../../src/train/index.ts';
import { timePair, type Timing } from '../gpu-common.ts';
import { loadAverage, machine, writeDocSection, writeResults } from '../report.ts';
import { sampleBatch } from './episodes.ts';
import { minibatch } from './minibatch.ts';
import { TfPolicy } from './tfjs-policy.ts';

const quick = process.argv.includes('--quick');
const SIZES = quick ? [64] : [64, 256];
const TIMING: Timing = { warmup: 2, minReps: 7, maxReps: 25, budgetMs: 30_000 };
const cpu: BackendChoice = { backend: 'cpu', reason: 'benchmark', adapter: null, ctx: null };
const pool = DEFAULT_POOL;

interface Row {
  checkpoint: string;
  minibatch: number;
  measure: 'update' | 'step' | 'forward';
  baton_ms: number;
  tfjs_ms: number;
  /** TF.js time / Baton time: above 1, the compute core is faster. */
  ratio: number;
}

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;

async function measure(checkpoint: PolicyCheckpoint, M: number): Promise<Row[]> {
  const config = trainConfig({ minibatch: M });
  const data = await sampleBatch(checkpoint, pool, config, M, 17);
  const full = data.full;
  console.log(`${checkpoint.name}, minibatch ${M}: ${full.batch} steps from ${data.episodes} constructions`);
  const learner = await Learner.create(checkpoint, checkpoint, pool, config, cpu);
  const tfp = new TfPolicy(tf, checkpoint, config, M);
  const rows: Row[] = [];
  const row = (m: Row['measure'], [baton, tfjs]: [number, number]): void => {
    const r = {
      checkpoint: checkpoint.name,
      minibatch: M,
      measure: m,
      baton_ms: baton,
      tfjs_ms: tfjs,
      ratio: tfjs / baton,
    };
    console.log(JSON.stringify(r));
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
    row('update', await timePair(coreUpdate, tfUpdate, TIMING));

    // The graph step alone, on the minibatch the last update left in the model / uploaded once.
    const coef = Float32Array.from(pick, (r) => -(data.advantages[r] as number) / M);
    const valid = new Float32Array(M).fill(1 / M);
    learner.model.setInput('coef', coef);
    learner.model.setInput('valid', valid);
    const feed = tfp.feed(minibatch(checkpoint.config, pool, full, pick, M));
    const tc = tf.tensor1d(coef);
    const tv = tf.tensor1d(valid);
    row(
      'step',
      await timePair(
        () => learner.model.step(),
        () => tfp.graphStep(feed, tc, tv),
        TIMING,
      ),
    );
    const joint = learner.graph.joint;
    if (!joint) throw new Error('training graph without joint log-probabilities');
    row(
      'forward',
      await timePair(
        async () => {
          await learner.model.step({ backward: false, update: false });
          return learner.model.read(joint);
        },
        async () => {
          const j = tf.tidy(() => tfp.forward(feed).joint);
          const out = await j.data();
          j.dispose();
          return out;
        },
        TIMING,
      ),
    );
    tf.dispose([tc, tv]);
    tfp.release(feed);
  } finally {
    learner.dispose();
    tfp.dispose();
  }
  return rows;
}

function writeDocs(rows: Row[], load: [number, number, number]): void {
  const { cpu: model, cores, node } = machine();
  const label = { update: 'trainer update', step: 'graph step', forward: 'forward' } as const;
  const table = [
    '| checkpoint | minibatch | measure | Baton ms | TF.js ms | TF.js / Baton |',
    '| --- | ---: | --- | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.checkpoint} | ${r.minibatch} | ${label[r.measure]} | ${r.baton_ms} | ${r.tfjs_ms} | ${r.ratio} |`,
    ),
  ];
  const body = [
    'One PPO update of the construction policy (the default network: message-passing encoder,',
    'node and edge heads; joint node + edge log-probability; loss, gradient, global-norm clipping',
    "and Adam as `src/train/learner.ts`) on the compute core's CPU backend vs the same network and",
    "update written with TF.js 4.22 ops on TF.js's `cpu` backend, both plain JavaScript in Node, from",
    'the same checkpoint on the same minibatch of steps from constructions sampled by that',
    'checkpoint (mixed preset, simulated sub-agents). Median wall time per call, the two sides',
    'timed alternately. Command: `npm run bench:train-tfjs` (writes `bench/results/train-tfjs.json`).',
    'That both compute the same thing is tested in `tests/unit/train-tfjs-parity.test.ts`: equal',
    'joint log-probabilities, losses, gradient norms and parameters after three updates.',
    '',
    '- **trainer update**: what the trainer runs per minibatch (`Learner.update`: gather the rows, a',
    '  forward pass read back, the PPO objective in TypeScript, then forward + backward + clip +',
    '  Adam; TF.js the same steps, `variableGrads` + `applyGradients`).',
    '- **graph step**: forward + backward + clip + Adam on inputs already uploaded.',
    '- **forward**: the forward pass alone, joint log-probabilities read back.',
    '',
    `- Measured ${new Date().toISOString().slice(0, 10)} on ${cores} CPU cores (${model}), Node ${node};`,
    `  load average ${load.join(' / ')} (1 / 5 / 15 min) at the end: other processes shared the cores.`,
    '',
    ...table,
    '',
  ].join('\n');
  writeDocSection('Training step vs TF.js', body);
}

async function main(): Promise<void> {
  await tf.setBackend('cpu');
  const checkpoints = quick ? [priorCheckpoint(pool)] : [priorCheckpoint(pool), randomCheckpoint(pool, 11)];
  const rows: Row[] = [];
  for (const ck of checkpoints) for (const M of SIZES) rows.push(...(await measure(ck, M)));
  const out = rows.map((r) => ({
    ...r,
    baton_ms: round(r.baton_ms),
    tfjs_ms: round(r.tfjs_ms),
    ratio: round(r.ratio),
  }));
  writeResults('train-tfjs', out);
  writeDocs(out, loadAverage());
  console.table(out);
}

await main();
