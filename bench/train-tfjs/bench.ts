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
 * - forward: log π of two batches' rows per minibatch pass, as the trainer's old-policy passes run
 *   it: each pass uploads its minibatch and reads the joint log-probabilities back (`Learner.logProbs`,
 *   pruned to them; `TfPolicy.logProbs`). The batches take turns, so no pass repeats the inputs of
 *   the one before (which the compute core would skip).
 * Both sides are timed alternately (a, b, a, b, …) so that load from other processes hits both.
 * Equality of the two is a unit test (tests/unit/train-tfjs-parity.test.ts); this script checks
 * the first update's gradient norm again before it times anything.
 *
 * With --browser, the same in headless Chromium on WebGPU (SwiftShader, a software adapter):
 * the compute core's WebGPU backend vs tfjs-backend-webgpu, minibatch 64, the update and the step;
 * its rows go to bench/results/train-tfjs-webgpu.json and the section shows both files.
 *
 *   npm run bench:train-tfjs [-- --quick]     (--quick: minibatch 64 and the prior only)
 *   npm run bench:train-tfjs -- --browser
 *   npm run bench:train-tfjs -- --docs        (rewrites the section from bench/results only)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { onBenchPage } from '../browser-page.ts';
import type { BackendChoice } from '../../src/gpu/index.ts';
import { DEFAULT_POOL, priorCheckpoint, randomCheckpoint } from '../../src/policy/index.ts';
import type { Timing } from '../gpu-common.ts';
import { loadAverage, machine, writeDocSection, writeResults } from '../report.ts';
import { measure, type Row } from './measure.ts';
import type { PageResult } from './page/main.ts';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const SIZES = quick ? [64] : [64, 256];
const TIMING: Timing = { warmup: 2, minReps: 7, maxReps: 25, budgetMs: 30_000 };
/** The software adapter is slow: fewer repetitions. */
const GPU_TIMING: Timing = { warmup: 1, minReps: 3, maxReps: 8, budgetMs: 20_000 };
const cpu: BackendChoice = { backend: 'cpu', reason: 'benchmark', adapter: null, ctx: null };
const pool = DEFAULT_POOL;
const ROOT = join(import.meta.dirname, '../..');
const VITE_CONFIG = join(ROOT, 'bench/train-tfjs/vite.config.ts');

const round = (x: number, d = 2): number => Math.round(x * 10 ** d) / 10 ** d;
const rounded = (rows: Row[]): Row[] =>
  rows.map((r) => ({ ...r, baton_ms: round(r.baton_ms), tfjs_ms: round(r.tfjs_ms), ratio: round(r.ratio) }));

async function nodeRows(): Promise<Row[]> {
  await tf.setBackend('cpu');
  const checkpoints = quick ? [priorCheckpoint(pool)] : [priorCheckpoint(pool), randomCheckpoint(pool, 11)];
  const rows: Row[] = [];
  for (const ck of checkpoints)
    for (const M of SIZES) rows.push(...(await measure(tf, cpu, 'cpu (node)', ck, M, TIMING, console.log)));
  return rows;
}

async function browserRows(): Promise<PageResult> {
  return onBenchPage(VITE_CONFIG, 'runTfjsTrainBench', { timeoutMs: 900_000, log: true }, (page) =>
    page.evaluate((t) => window.runTfjsTrainBench([64], t), GPU_TIMING),
  );
}

const RESULTS = join(ROOT, 'bench/results');
const readRows = (name: string): Row[] =>
  existsSync(join(RESULTS, `${name}.json`))
    ? (JSON.parse(readFileSync(join(RESULTS, `${name}.json`), 'utf8')) as Row[])
    : [];

function writeDocs(adapter: string | null, measured: boolean): void {
  const rows = [...readRows('train-tfjs'), ...readRows('train-tfjs-webgpu')];
  const { cpu: model, cores, node } = machine();
  const label = { update: 'trainer update', step: 'graph step', forward: 'forward' } as const;
  const table = [
    '| backend | checkpoint | minibatch | measure | Baton ms | TF.js ms | TF.js / Baton |',
    '| --- | --- | ---: | --- | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.backend} | ${r.checkpoint} | ${r.minibatch} | ${label[r.measure]} | ${r.baton_ms} | ${r.tfjs_ms} | ${r.ratio} |`,
    ),
  ];
  const summary = [...new Set(rows.map((r) => r.backend))].map((backend) => {
    const of = (m: Row['measure']): Row[] => rows.filter((r) => r.backend === backend && r.measure === m);
    const ratios = of('update').map((r) => r.ratio);
    const lo = Math.min(...ratios);
    const hi = Math.max(...ratios);
    const span = (a: number, b: number): string => (a === b ? `${a}` : `${a}–${b}`);
    const inv = (x: number): number => Math.round(100 / x) / 100;
    const speed =
      lo >= 1
        ? `the trainer update is ${span(lo, hi)}× faster on the compute core than in TF.js`
        : hi < 1
          ? `the trainer update is ${span(inv(hi), inv(lo))}× slower on the compute core than in TF.js`
          : `the trainer update is between ${inv(lo)}× slower and ${hi}× faster on the compute core than in TF.js`;
    const verdict = lo >= 2 ? 'meets the goal of ≥ 2×' : 'misses the goal of ≥ 2×';
    // A log π pass's time as a share of a graph step's, per side (that pass also uploads its inputs).
    const share = (side: 'baton_ms' | 'tfjs_ms'): string => {
      const pairs = of('step').map((st) => {
        const fw = of('forward').find((f) => f.checkpoint === st.checkpoint && f.minibatch === st.minibatch);
        return fw ? fw[side] / st[side] : NaN;
      });
      const ok = pairs.filter((x) => Number.isFinite(x));
      return ok.length ? `${Math.round((100 * ok.reduce((a, b) => a + b, 0)) / ok.length)}%` : 'not measured';
    };
    return (
      `- ${backend}: ${speed}, which ${verdict}. A log π pass takes on average ${share('baton_ms')} of a graph ` +
      `step's time on the compute core and ${share('tfjs_ms')} in TF.js.`
    );
  });
  const body = [
    'One PPO update of the construction policy (the default network: message-passing encoder,',
    'node and edge heads; joint node + edge log-probability; loss, gradient, global-norm clipping',
    'and Adam as `src/train/learner.ts`) on the compute core vs the same network and update written',
    'with TF.js 4.22 ops (`bench/train-tfjs/tfjs-policy.ts`) on the same class of backend: in Node',
    "the core's CPU backend vs TF.js's `cpu` backend (both plain JavaScript), in headless Chromium",
    "the core's WebGPU backend vs `tfjs-backend-webgpu` on one adapter. Both start from the same",
    'checkpoint and get the same minibatch of steps from constructions sampled by that checkpoint',
    '(mixed preset, simulated sub-agents). Median wall time per call, the two sides timed',
    'alternately. Command: `npm run bench:train-tfjs` (Node; writes `bench/results/train-tfjs.json`)',
    'and `npm run bench:train-tfjs -- --browser` (Chromium; `bench/results/train-tfjs-webgpu.json`).',
    'That both compute the same thing is tested in `tests/unit/train-tfjs-parity.test.ts` (CPU):',
    'equal joint log-probabilities, losses, gradient norms and parameters after three updates.',
    '',
    '- **trainer update**: what the trainer runs per minibatch (`Learner.update`: gather the rows, a',
    '  forward pass read back, the PPO objective in TypeScript, then forward + backward + clip +',
    '  Adam; TF.js the same steps, `variableGrads` + `applyGradients`).',
    '- **graph step**: forward + backward + clip + Adam on inputs already uploaded.',
    "- **forward**: log π of two batches' rows per minibatch pass, as the trainer's old-policy passes",
    '  run it: each pass uploads its minibatch and reads the joint log-probabilities back',
    '  (`Learner.logProbs`, which computes only what they need; `TfPolicy.logProbs`). The batches',
    '  take turns, so that no pass repeats the inputs of the one before, which the compute core',
    '  would skip.',
    '',
    ...summary,
    '',
    'The TF.js version is written as TF.js is meant to be used, and two direct transcriptions of the',
    "core's graph were replaced after measuring them on TF.js's CPU backend: summing link messages",
    'with `gather` + `unsortedSegmentSum` (that kernel loops over the segments with one masked pass',
    'each: about a minute per forward pass at a minibatch of 32, against under a second for the',
    'batched matmuls with per-state N×N link weights used now), and reading role embeddings with',
    '`gather`, whose gradient is the same segment loop (about a fifth of the step in one `tf.profile`',
    'run; one-hot × table now). What remains of its step is mostly `BatchMatMul` and the broadcast',
    '`Add` / `Mul` with their reductions in the backward pass (`tf.profile`). Both sides run the',
    'forward pass twice per trainer update, as `Learner.update` does (once read back for the PPO',
    'clip, once inside the step); a TF.js program could put the clip in its own loss and skip the',
    'first pass, which would save about its forward time (the forward row); not measured here.',
    '',
    ...(rows.some((r) => r.backend.startsWith('webgpu'))
      ? [
          'Where the WebGPU step went, per dispatch (`npm run bench:gpu-profile`: Node, Dawn on the same',
          'SwiftShader driver; each dispatch of one step submitted alone, 8 times in a row, minimum of',
          '3 repetitions, so every time includes a share of a queue round trip): before the change below,',
          "91% of a step (9.2 of 10.1 s at minibatch 64) was the compute core's `scatter_add_rows.wgsl`",
          'in the forward pass, whose every output float scanned all 4,224 link slots (outRows·cols·count',
          '≈ 10⁸ iterations per call, four calls per pass for the link-message sums). Now the index inputs',
          'are grouped per destination row on the host whenever they are set (CSR: offsets and sources,',
          '`src/gpu/webgpu/csr.ts`, a counting sort), and the scatter kernel, which also serves as the',
          "gradient of `gatherRows`, reads only its own row's sources, in increasing position, the order",
          'the scanning kernel used: the same sums bit for bit (tested against the CPU backend, with empty,',
          'crowded, unordered and repeated destinations). The matmul kernel also lost its per-load bounds',
          'branches (an edge block re-reads the last row or column; about 2× on SwiftShader alone, while a',
          'shared-memory tiling measured slower there). After both, no kernel dominates: matmul about 37%',
          'of the dispatch time, element-wise ops 25%, gathers and scatters 31%.',
          '',
          'Before these two changes the same command measured, on 2026-11-24 (webgpu, prior, minibatch 64):',
          'trainer update 20,731.7 ms vs 2,983.8 ms in TF.js (0.14×), graph step 12,555 vs 2,340.1 ms',
          '(0.19×), forward 6,442.7 vs 1,044.2 ms (0.16×). The table below is the run after them.',
          '',
        ]
      : []),
    `- Last run ${new Date().toISOString().slice(0, 10)} on ${cores} CPU cores (${model}), Node ${node}, no GPU;`,
    measured
      ? `  load average ${loadAverage().join(' / ')} (1 / 5 / 15 min) at its end: other processes shared the cores.`
      : '  (this text was rewritten from bench/results; the load average of those runs was not recorded).',
    rows.some((r) => r.backend.startsWith('webgpu'))
      ? `- WebGPU adapter in headless Chromium: ${adapter ?? rows.find((r) => r.adapter)?.adapter ?? 'not recorded'}.`
      : '- The Chromium / WebGPU half has not been run (`--browser`).',
    '',
    ...table,
    '',
  ].join('\n');
  writeDocSection('Training step vs TF.js', body);
}

async function main(): Promise<void> {
  let adapter: string | null = null;
  if (args.has('--docs')) {
    // Only rewrite the section from bench/results (after a change of its wording).
  } else if (args.has('--browser')) {
    const r = await browserRows();
    adapter = r.adapter;
    writeResults(
      'train-tfjs-webgpu',
      rounded(r.rows).map((row) => ({ ...row, adapter: r.adapter })),
    );
    console.table(rounded(r.rows));
  } else {
    const rows = rounded(await nodeRows());
    writeResults('train-tfjs', rows);
    console.table(rows);
  }
  writeDocs(adapter, !args.has('--docs'));
}

await main();
process.exit(0);
