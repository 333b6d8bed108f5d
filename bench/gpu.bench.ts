/**
 * `npm run bench:gpu`: times one MLP policy training step (forward + loss + backward + clip + Adam)
 * with Baton's compute core and with TF.js on the same inputs — in Node on the CPU backends, and in
 * headless Chromium on WebGPU and CPU — then writes bench/results/gpu.json and the "## GPU" section
 * of docs/benchmarks.md. Options: --node-only, --browser-only, --quick (smallest size only).
 */
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs';
import { CpuModel } from '../src/gpu/cpu/model.ts';
import { nodeGpu } from '../src/gpu/node-gpu.ts';
import { chooseBackend } from '../src/gpu/select.ts';
import type { BenchRow } from './gpu-common.ts';
import { ADAM, SIZES, feed, problem, sizeLabel, tfjsStep, timePair } from './gpu-common.ts';
import type { PageResult } from './gpu-page/main.ts';
import { machine, writeDocSection, writeResults } from './report.ts';
import { onBenchPage } from './browser-page.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const sizes = args.has('--quick') ? SIZES.slice(0, 1) : SIZES;
const CPU_TIMING = { warmup: 2, minReps: 5, maxReps: 30, budgetMs: 3000 };
// The software adapter takes seconds per step at the larger sizes: fewer repetitions.
const GPU_TIMING = { warmup: 1, minReps: 3, maxReps: 10, budgetMs: 3000 };

async function nodeRows(): Promise<{ rows: BenchRow[]; auto: string }> {
  const auto = await chooseBackend('auto', { gpu: await nodeGpu() });
  auto.ctx?.dispose();
  console.log(`node: auto backend ${auto.backend} (${auto.reason})`);
  await tf.setBackend('cpu');
  const rows: BenchRow[] = [];
  for (const s of sizes) {
    const pr = problem(s);
    const model = new CpuModel(pr.graph, { loss: pr.loss, optimizer: ADAM });
    feed(model, pr);
    const tj = tfjsStep(tf, pr);
    const gap = Math.abs((await model.step()).loss - (await tj.step()));
    if (gap > 1e-4) throw new Error(`Baton and TF.js disagree on the first loss by ${gap}`);
    const [baton, tfjs] = await timePair(
      () => model.step(),
      () => tj.step(),
      CPU_TIMING,
    );
    tj.dispose();
    const row = {
      backend: 'cpu (node)',
      size: sizeLabel(s),
      baton_ms: baton,
      tfjs_ms: tfjs,
      ratio: tfjs / baton,
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  return { rows, auto: `${auto.backend}: ${auto.reason}` };
}

async function browserRows(): Promise<PageResult> {
  const config = join(root, 'bench/vite.gpu.config.ts');
  const result = await onBenchPage(config, 'runGpuBench', { timeoutMs: 600_000, log: true }, (page) =>
    page.evaluate(([s, t]) => window.runGpuBench(s, t), [sizes, GPU_TIMING] as const),
  );
  const worst = Math.max(...result.lossGaps);
  if (worst > 1e-4) throw new Error(`Baton and TF.js disagree on the first loss by ${worst} in Chromium`);
  return result;
}

const round = (x: number): number => Math.round(x * 100) / 100;

function writeDocs(rows: BenchRow[], adapter: string, autoNode: string, autoBrowser: string): void {
  const table = [
    '| backend | size | Baton ms | TF.js ms | TF.js / Baton |',
    '| --- | --- | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.backend} | ${r.size} | ${r.baton_ms} | ${r.tfjs_ms} | ${r.ratio} |`),
  ];
  // Does the automatic choice (software adapter → CPU) pick the faster Baton path? Compare the
  // two Baton columns measured in the same Chromium run, size by size.
  const versus = rows
    .filter((r) => r.backend === 'webgpu (chromium)')
    .map((g) => {
      const c = rows.find((r) => r.backend === 'cpu (chromium)' && r.size === g.size);
      return c ? `${g.size}: CPU ${c.baton_ms} ms vs WebGPU ${g.baton_ms} ms` : '';
    })
    .filter((x) => x !== '');
  const cpuWins = rows.filter(
    (g) =>
      g.backend === 'webgpu (chromium)' &&
      rows.some((c) => c.backend === 'cpu (chromium)' && c.size === g.size && c.baton_ms < g.baton_ms),
  ).length;
  const { cpu, cores } = machine();
  const body = [
    'One MLP policy-gradient training step (obs 32 → tanh hidden ×2 → 16 masked actions; forward,',
    'log-softmax loss, backward, global-norm clipping, Adam), Baton compute core vs the same step in',
    'TF.js 4 on the same inputs and initial weights, median wall time per step including the loss',
    'read-back. Command: `npm run bench:gpu` (writes `bench/results/gpu.json`).',
    '',
    `- Measured ${new Date().toISOString().slice(0, 10)} on ${cores} CPU cores (${cpu}), no GPU; ` +
      `load average at the end of the run ${loadavg()[0]?.toFixed(1)} (other processes shared the cores, so absolute times are noisy; ` +
      'Baton and TF.js steps alternate so both see the same load).',
    `- WebGPU adapter in headless Chromium: ${adapter}.`,
    `- Automatic backend choice — Node: ${autoNode}; Chromium: ${autoBrowser}.`,
    ...(versus.length
      ? [
          `- Baton's CPU backend beat Baton on this WebGPU adapter at ${cpuWins} of ${versus.length} sizes (${versus.join('; ')}).`,
        ]
      : []),
    '',
    ...table,
    '',
  ].join('\n');
  writeDocSection('GPU', body);
}

async function main(): Promise<void> {
  const rows: BenchRow[] = [];
  let autoNode = 'not run';
  let autoBrowser = 'not run';
  let adapter = 'not run';
  if (!args.has('--browser-only')) {
    const n = await nodeRows();
    rows.push(...n.rows);
    autoNode = n.auto;
  }
  if (!args.has('--node-only')) {
    const b = await browserRows();
    rows.push(...b.rows);
    adapter = b.adapter;
    autoBrowser = b.autoChoice;
  }
  const out = rows.map((r) => ({
    ...r,
    baton_ms: round(r.baton_ms),
    tfjs_ms: round(r.tfjs_ms),
    ratio: round(r.ratio),
  }));
  writeResults('gpu', out);
  writeDocs(out, adapter, autoNode, autoBrowser);
  console.table(out);
}

await main();
process.exit(0);
