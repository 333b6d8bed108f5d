/**
 * `npm run bench:lm-step`: times one training step of the tiny orchestrator transformer (forward,
 * weighted cross-entropy over the vocabulary, backward, global-norm clipping, Adam) on Baton's CPU
 * backends (`src/lm/graph.ts` compiled by the compute core: TypeScript and WebAssembly SIMD) and the
 * same step written in TF.js 4 on its CPU and wasm backends, same weights and inputs, in one run.
 * Two phases, as TF.js has one active backend at a time: Baton TypeScript, Baton wasm and TF.js CPU
 * interleaved; then Baton wasm and TF.js wasm interleaved, so every ratio compares steps that saw the
 * same load. Writes bench/results/lm-step.json and the "## Tiny transformer training step" section
 * of docs/benchmarks.md. Option: --quick (smallest size only).
 */
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { CpuModel, compile } from '../src/gpu/index.ts';
import { buildTinyGptGraph, initWeights } from '../src/lm/index.ts';
import { TinyGptConfigSchema } from '../src/lm/spec.ts';
import { ADAM, tfjsStep, window, type LmSize } from './lm-common.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

type Size = LmSize;

const SIZES: Size[] = [
  { vocab: 256, embd: 64, layers: 2, heads: 4, batch: 4, seq: 32 },
  { vocab: 512, embd: 128, layers: 2, heads: 4, batch: 4, seq: 64 },
];
const TIMING = { warmup: 1, minReps: 3, maxReps: 20, budgetMs: 20_000 };

const label = (s: Size): string =>
  `V ${s.vocab}, d ${s.embd}, ${s.layers} layers, ${s.heads} heads, batch ${s.batch} × seq ${s.seq}`;

/** Median ms per call of each function, calls interleaved (order reversed every round). */
async function timeAll(fns: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const f of fns) for (let i = 0; i < TIMING.warmup; i++) await f();
  const times: number[][] = fns.map(() => []);
  let spent = 0;
  for (let round = 0; ; round++) {
    const n = times[0]?.length ?? 0;
    if (n >= TIMING.maxReps || (n >= TIMING.minReps && spent >= TIMING.budgetMs)) break;
    const order = fns.map((_, i) => i);
    if (round % 2 === 1) order.reverse();
    for (const i of order) {
      const t0 = performance.now();
      await (fns[i] as () => Promise<unknown>)();
      const dt = performance.now() - t0;
      (times[i] as number[]).push(dt);
      spent += dt;
    }
  }
  const median = (x: number[]): number => [...x].sort((u, v) => u - v)[Math.floor(x.length / 2)] as number;
  return times.map(median);
}

interface Row {
  size: string;
  params: number;
  baton_ms: number;
  baton_wasm_ms: number;
  tfjs_ms: number;
  /** Phase 2: Baton wasm again, beside TF.js wasm. */
  baton_wasm2_ms: number;
  tfjs_wasm_ms: number;
  ratio: number;
  wasm_speedup: number;
  tfjs_wasm_ratio: number;
}

async function main(): Promise<void> {
  const wasmDir = dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
  setWasmPaths(join(wasmDir, '/'));
  await tf.setBackend('cpu');
  const sizes = process.argv.includes('--quick') ? SIZES.slice(0, 1) : SIZES;
  const rows: Row[] = [];
  for (const s of sizes) {
    const config = TinyGptConfigSchema.parse({
      vocabSize: s.vocab,
      nPositions: s.seq,
      nEmbd: s.embd,
      nHead: s.heads,
      nLayer: s.layers,
    });
    const weights = initWeights(config, 1);
    const { inputs } = window(config, s);
    const tg = buildTinyGptGraph(config, { batch: s.batch, seq: s.seq, weights });
    const opts = {
      loss: tg.loss,
      optimizer: {
        lr: ADAM.lr,
        beta1: ADAM.beta1,
        beta2: ADAM.beta2,
        eps: ADAM.eps,
        clipNorm: ADAM.clipNorm,
      },
    };
    const model = new CpuModel(tg.graph, opts);
    const wasm = await compile(
      { backend: 'wasm', reason: 'benchmark', adapter: null, ctx: null },
      tg.graph,
      opts,
    );
    for (const [k, x] of Object.entries(inputs)) {
      model.setInput(k, x);
      wasm.setInput(k, x);
    }
    await tf.setBackend('cpu');
    const tj = tfjsStep(tf, weights, s, inputs);
    const [lb, lw, lt] = [(await model.step()).loss, (await wasm.step()).loss, await tj.step()];
    for (const [name, l] of [
      ['Baton wasm', lw],
      ['TF.js', lt],
    ] as const) {
      if (Math.abs(lb - l) > 1e-3 * Math.max(1, Math.abs(lb)))
        throw new Error(`Baton and ${name} disagree on the first loss: ${lb} vs ${l}`);
    }
    const [baton, batonWasm, tfjs] = (await timeAll([
      () => model.step(),
      () => wasm.step(),
      () => tj.step(),
    ])) as [number, number, number];
    tj.dispose();
    await tf.setBackend('wasm');
    const tw = tfjsStep(tf, weights, s, inputs, true);
    const ltw = await tw.step();
    if (Math.abs(lb - ltw) > 1e-3 * Math.max(1, Math.abs(lb)))
      throw new Error(`Baton and TF.js wasm disagree on the first loss: ${lb} vs ${ltw}`);
    const [batonWasm2, tfjsWasm] = (await timeAll([() => wasm.step(), () => tw.step()])) as [number, number];
    tw.dispose();
    const params = [...weights.params.values()].reduce((n, a) => n + a.length, 0);
    const row: Row = {
      size: label(s),
      params,
      baton_ms: +baton.toFixed(1),
      baton_wasm_ms: +batonWasm.toFixed(1),
      tfjs_ms: +tfjs.toFixed(1),
      baton_wasm2_ms: +batonWasm2.toFixed(1),
      tfjs_wasm_ms: +tfjsWasm.toFixed(1),
      ratio: +(tfjs / baton).toFixed(2),
      wasm_speedup: +(baton / batonWasm).toFixed(2),
      tfjs_wasm_ratio: +(tfjsWasm / batonWasm2).toFixed(2),
    };
    console.log(JSON.stringify(row));
    rows.push(row);
  }
  const m = machine();
  const load = loadAverage();
  const tfThreads = tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT');
  const tfSimd = tf.env().getBool('WASM_HAS_SIMD_SUPPORT');
  writeResults('lm-step', { date: new Date().toISOString(), machine: m, load, tfSimd, tfThreads, rows });
  const table = [
    '| size | parameters | Baton TypeScript ms | Baton wasm ms | TF.js CPU ms | TypeScript / wasm | TF.js CPU / Baton TypeScript | Baton wasm ms (phase 2) | TF.js wasm ms | TF.js wasm / Baton wasm |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.size} | ${r.params} | ${r.baton_ms} | ${r.baton_wasm_ms} | ${r.tfjs_ms} | ${r.wasm_speedup} | ${r.ratio} | ${r.baton_wasm2_ms} | ${r.tfjs_wasm_ms} | ${r.tfjs_wasm_ratio} |`,
    ),
  ];
  writeDocSection(
    'Tiny transformer training step',
    [
      'One training step of the tiny orchestrator transformer (`src/lm/graph.ts`: embeddings, pre-LayerNorm',
      'blocks with fused causal attention and a GELU MLP, tied output head, weighted cross-entropy over the',
      "vocabulary; backward, global-norm clipping, Adam) on Baton's TypeScript and WebAssembly SIMD backends",
      'vs the same step in TF.js 4 on its CPU and wasm backends, same initial weights and inputs (the first',
      'losses agree within 1e-3), median wall time per step including the loss read-back. TF.js has one',
      'active backend at a time, so the run has two phases: Baton TypeScript, Baton wasm and TF.js CPU',
      'interleaved, then Baton wasm and TF.js wasm interleaved; each ratio compares steps of one phase.',
      "TF.js's wasm backend has no kernel for the embedding lookup's gradient (UnsortedSegmentSum), so its",
      'step looks the embeddings up as one-hot rows times the table (two extra small matmuls).',
      `TF.js wasm ran with SIMD ${tfSimd ? 'on' : 'off'} and threads ${tfThreads ? 'on' : 'off'} (Node). Command: \`npm run bench:lm-step\` (writes`,
      '`bench/results/lm-step.json`).',
      '',
      `- Measured ${new Date().toISOString().slice(0, 10)} on ${m.cores} CPU cores (${m.cpu}), Node ${m.node}; load average at the end of the run ${load[0]} (other processes shared the cores, so absolute times are noisy; steps alternate so all paths of a phase see the same load).`,
      '',
      ...table,
      '',
    ].join('\n'),
  );
}

await main();
