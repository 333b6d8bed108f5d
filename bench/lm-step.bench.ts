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
import { createRng } from '../src/core/rng.ts';
import { CpuModel, compile } from '../src/gpu/index.ts';
import {
  buildTinyGptGraph,
  initWeights,
  windowInputs,
  type TinyGptConfig,
  type TinyGptWeights,
} from '../src/lm/index.ts';
import { TinyGptConfigSchema, headDim, paramSpecs } from '../src/lm/spec.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

interface Size {
  vocab: number;
  embd: number;
  layers: number;
  heads: number;
  batch: number;
  seq: number;
}

const SIZES: Size[] = [
  { vocab: 256, embd: 64, layers: 2, heads: 4, batch: 4, seq: 32 },
  { vocab: 512, embd: 128, layers: 2, heads: 4, batch: 4, seq: 64 },
];
const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.99, eps: 1e-8, clipNorm: 1 };
const TIMING = { warmup: 1, minReps: 3, maxReps: 20, budgetMs: 20_000 };

const label = (s: Size): string =>
  `V ${s.vocab}, d ${s.embd}, ${s.layers} layers, ${s.heads} heads, batch ${s.batch} × seq ${s.seq}`;

/** A window of random prompts (a quarter of the row) and targets (the rest), every row full. */
function window(c: TinyGptConfig, s: Size): ReturnType<typeof windowInputs> {
  const rng = createRng(7);
  const rows = Array.from({ length: s.batch }, () => {
    const p = Math.max(1, Math.floor(s.seq / 4));
    return {
      prompt: Array.from({ length: p }, () => rng.int(c.vocabSize)),
      target: Array.from({ length: s.seq + 1 - p }, () => rng.int(c.vocabSize)),
    };
  });
  return windowInputs(
    rows.map((r) => [r]),
    s.batch,
    s.seq,
  );
}

let nextPrefix = 0;

/**
 * The same step in TF.js (heads by reshape/transpose, a −1e9 causal mask, logSoftmax cross-entropy).
 * With `oneHotLookup` the embeddings are looked up as one-hot rows times the table (TF.js's wasm
 * backend has no kernel for the gather's gradient, UnsortedSegmentSum).
 */
function tfjsStep(
  w: TinyGptWeights,
  s: Size,
  inputs: ReturnType<typeof windowInputs>['inputs'],
  oneHotLookup = false,
): { step: () => Promise<number>; dispose: () => void } {
  const c = w.config;
  const [B, T, D, H] = [s.batch, s.seq, c.nEmbd, c.nHead];
  const hd = headDim(c);
  const prefix = `lm${(nextPrefix += 1)}_`;
  const vars = new Map<string, tf.Variable>();
  for (const spec of paramSpecs(c)) {
    const t = tf.tensor(w.params.get(spec.name) as Float32Array, [...spec.shape]);
    vars.set(spec.name, tf.variable(t, true, `${prefix}${spec.name}`));
    t.dispose();
  }
  const v = (n: string): tf.Variable => vars.get(n) as tf.Variable;
  const ids = tf.tensor1d(Int32Array.from(inputs.ids), 'int32');
  const pos = tf.tensor1d(Int32Array.from(inputs.positions), 'int32');
  const onehot = tf.oneHot(tf.tensor1d(Int32Array.from(inputs.targets), 'int32'), c.vocabSize).toFloat();
  const weights = tf.tensor1d(inputs.weights as Float32Array);
  const causal = tf.linalg.bandPart(tf.ones([T, T]), -1, 0);
  const maskAdd = tf.mul(tf.sub(1, causal), -1e9);
  const ln = (x: tf.Tensor2D, g: string, b: string): tf.Tensor2D => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, c.layerNormEps))), v(g)), v(b));
  };
  const lin = (x: tf.Tensor2D, p: string): tf.Tensor2D =>
    tf.add(tf.matMul(x, v(`${p}.w`) as tf.Tensor2D), v(`${p}.b`));
  const gelu = (z: tf.Tensor): tf.Tensor =>
    tf.mul(
      tf.mul(0.5, z),
      tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(z, tf.mul(0.044715, tf.pow(z, 3)))))),
    );
  const heads = (x: tf.Tensor2D): tf.Tensor4D => tf.transpose(tf.reshape(x, [B, T, H, hd]), [0, 2, 1, 3]);
  const opt = tf.train.adam(ADAM.lr, ADAM.beta1, ADAM.beta2, ADAM.eps);
  const lossFn = (): tf.Scalar =>
    tf.tidy(() => {
      const lookup = (table: tf.Variable, idx: tf.Tensor1D): tf.Tensor2D =>
        oneHotLookup
          ? tf.matMul(tf.oneHot(idx, table.shape[0] as number).toFloat(), table as tf.Tensor2D)
          : (tf.gather(table, idx) as tf.Tensor2D);
      let x = tf.add(lookup(v('wte'), ids), lookup(v('wpe'), pos)) as tf.Tensor2D;
      for (let l = 0; l < c.nLayer; l++) {
        const p = `h.${l}.`;
        const a = ln(x, `${p}ln_1.g`, `${p}ln_1.b`);
        const q = heads(lin(a, `${p}attn.q`));
        const k = heads(lin(a, `${p}attn.k`));
        const vv = heads(lin(a, `${p}attn.v`));
        const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(hd)), maskAdd));
        const o = tf.reshape(tf.transpose(tf.matMul(att, vv), [0, 2, 1, 3]), [B * T, D]) as tf.Tensor2D;
        x = tf.add(x, lin(o, `${p}attn.o`));
        const m = ln(x, `${p}ln_2.g`, `${p}ln_2.b`);
        x = tf.add(x, lin(gelu(lin(m, `${p}mlp.fc`)) as tf.Tensor2D, `${p}mlp.proj`));
      }
      const h = ln(x, 'ln_f.g', 'ln_f.b');
      const logp = tf.logSoftmax(tf.matMul(h, v('wte'), false, true));
      return tf.neg(tf.sum(tf.mul(tf.sum(tf.mul(logp, onehot), -1), weights))) as tf.Scalar;
    });
  const list = [...vars.values()];
  const step = async (): Promise<number> => {
    const { value, grads } = tf.variableGrads(lossFn, list);
    const clipped = tf.tidy(() => {
      const all = Object.values(grads);
      const norm = tf.sqrt(tf.addN(all.map((g) => tf.sum(tf.square(g)))));
      const scale = tf.minimum(1, tf.div(ADAM.clipNorm, tf.add(norm, 1e-6)));
      return Object.entries(grads).map(([name, g]) => ({ name, tensor: tf.mul(g, scale) }));
    });
    opt.applyGradients(clipped);
    tf.dispose(grads);
    tf.dispose(clipped.map((x) => x.tensor));
    const l = (await value.data())[0] as number;
    value.dispose();
    return l;
  };
  const dispose = (): void => {
    tf.dispose([...list, ids, pos, onehot, weights, causal, maskAdd]);
    opt.dispose();
  };
  return { step, dispose };
}

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
    const tj = tfjsStep(weights, s, inputs);
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
    const tw = tfjsStep(weights, s, inputs, true);
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
