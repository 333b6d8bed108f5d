/**
 * The benchmarked step, shared by the Node run (CPU) and the Chromium page (WebGPU and CPU): an MLP
 * policy-gradient step — forward, masked log-softmax, loss, backward, global-norm clipping, Adam —
 * written once with Baton's compute core and once with TF.js, on the same inputs and initial weights.
 */
import type * as TF from '@tensorflow/tfjs';
import { createRng } from '../src/core/rng.ts';
import type { Graph } from '../src/gpu/graph.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../src/gpu/mlp.ts';
import type { MlpPolicyConfig } from '../src/gpu/mlp.ts';
import type { Model } from '../src/gpu/model.ts';

export interface BenchRow {
  backend: string;
  size: string;
  baton_ms: number;
  tfjs_ms: number;
  ratio: number;
}

export interface BenchSize {
  batch: number;
  hidden: number;
}

export const OBS = 32;
export const ACTIONS = 16;
/** Adam without weight decay (TF.js's Adam has none), global-norm clipping at 1. */
export const ADAM = { lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-7, clipNorm: 1 };

export const SIZES: BenchSize[] = [
  { batch: 256, hidden: 64 },
  { batch: 256, hidden: 256 },
  { batch: 1024, hidden: 64 },
  { batch: 1024, hidden: 256 },
];

export const sizeLabel = (s: BenchSize): string => `batch ${s.batch}, hidden ${s.hidden}x2`;

export function config(s: BenchSize): MlpPolicyConfig {
  return { batch: s.batch, obs: OBS, hidden: [s.hidden, s.hidden], actions: ACTIONS, act: 'tanh' };
}

export interface Problem {
  cfg: MlpPolicyConfig;
  graph: Graph;
  loss: ReturnType<typeof mlpPolicyGraph>['loss'];
  init: Float32Array[];
  inputs: ReturnType<typeof mlpPolicyInputs>;
}

export function problem(s: BenchSize): Problem {
  const cfg = config(s);
  const p = mlpPolicyGraph(cfg, createRng(42));
  const init = p.params.map((t) => {
    const op = p.graph.node(t).op;
    if (op.kind !== 'param') throw new Error('expected a parameter');
    return op.init;
  });
  return { cfg, graph: p.graph, loss: p.loss, init, inputs: mlpPolicyInputs(cfg, createRng(7)) };
}

export function feed(model: Model, pr: Problem): void {
  model.setInput('obs', pr.inputs.obs);
  model.setInput('mask', pr.inputs.mask);
  model.setInput('actions', pr.inputs.actions);
  model.setInput('adv', pr.inputs.adv);
}

export interface Timing {
  warmup: number;
  minReps: number;
  maxReps: number;
  /** Keep repeating (up to maxReps) while the timed calls so far took less than this, ms. */
  budgetMs: number;
}

/**
 * Median wall time in ms of `a` and of `b`, timed alternately (a, b, a, b, …) after `warmup` calls of
 * each, so that load from other processes on a shared machine hits both sides alike.
 */
export async function timePair(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  opts: Timing,
): Promise<[number, number]> {
  for (let i = 0; i < opts.warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  let spent = 0;
  while (ta.length < opts.minReps || (ta.length < opts.maxReps && spent < opts.budgetMs)) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    tb.push(performance.now() - t0);
    spent += (ta[ta.length - 1] as number) + (tb[tb.length - 1] as number);
  }
  const median = (x: number[]): number => [...x].sort((u, v) => u - v)[Math.floor(x.length / 2)] as number;
  return [median(ta), median(tb)];
}

let nextPrefix = 0;

/** The same step in TF.js; returns a function that runs one step and reads back the loss. */
export function tfjsStep(tf: typeof TF, pr: Problem): { step: () => Promise<number>; dispose: () => void } {
  const { cfg } = pr;
  const vars: TF.Variable[] = [];
  // Variable names are global to the TF.js engine; a fresh prefix per problem keeps them unique.
  const prefix = `p${(nextPrefix += 1)}_`;
  const sizes = [...cfg.hidden, cfg.actions];
  let width = cfg.obs;
  sizes.forEach((out, i) => {
    vars.push(tf.variable(tf.tensor2d(pr.init[2 * i] as Float32Array, [width, out]), true, `${prefix}w${i}`));
    vars.push(tf.variable(tf.tensor1d(pr.init[2 * i + 1] as Float32Array), true, `${prefix}b${i}`));
    width = out;
  });
  const obs = tf.tensor2d(pr.inputs.obs, [cfg.batch, cfg.obs]);
  // Masked logits get −1e9 before the log-softmax: probability 0 in f32, as in Baton.
  const maskPenalty = tf.tidy(() =>
    tf.mul(tf.sub(1, tf.tensor2d(pr.inputs.mask, [cfg.batch, cfg.actions])), -1e9),
  );
  const onehot = tf.oneHot(tf.tensor1d(Int32Array.from(pr.inputs.actions), 'int32'), cfg.actions).toFloat();
  const adv = tf.tensor1d(pr.inputs.adv);
  const opt = tf.train.adam(ADAM.lr, ADAM.beta1, ADAM.beta2, ADAM.eps);
  const lossFn = (): TF.Scalar =>
    tf.tidy(() => {
      let h: TF.Tensor2D = obs;
      for (let i = 0; i < sizes.length; i++) {
        const z = tf.add(
          tf.matMul(h, vars[2 * i] as TF.Variable<TF.Rank.R2>),
          vars[2 * i + 1] as TF.Variable,
        );
        h = (i === sizes.length - 1 ? z : tf.tanh(z)) as TF.Tensor2D;
      }
      const logp = tf.logSoftmax(tf.add(h, maskPenalty));
      const taken = tf.sum(tf.mul(logp, onehot), -1);
      return tf.neg(tf.mean(tf.mul(taken, adv))) as TF.Scalar;
    });
  const step = async (): Promise<number> => {
    const { value, grads } = tf.variableGrads(lossFn, vars);
    const clipped = tf.tidy(() => {
      const list = Object.values(grads);
      const norm = tf.sqrt(tf.addN(list.map((g) => tf.sum(tf.square(g)))));
      const scale = tf.minimum(1, tf.div(ADAM.clipNorm, tf.add(norm, 1e-6)));
      return Object.entries(grads).map(([name, g]) => ({ name, tensor: tf.mul(g, scale) }));
    });
    opt.applyGradients(clipped);
    tf.dispose(grads);
    tf.dispose(clipped.map((c) => c.tensor));
    const l = (await value.data())[0] as number;
    value.dispose();
    return l;
  };
  const dispose = (): void => {
    tf.dispose([...vars, obs, maskPenalty, onehot, adv]);
    opt.dispose();
  };
  return { step, dispose };
}
