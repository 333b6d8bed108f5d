/**
 * The MLP policy-gradient step used by tests and benchmarks: obs [B, D] → hidden layers → logits
 * [B, A] → masked log-softmax → log π(a | s) of the taken actions → loss = −mean(adv · log π).
 */
import type { Rng } from '../core/rng.ts';
import type { Activation, Tensor } from './graph.ts';
import { Graph } from './graph.ts';
import { glorot, uniform } from './init.ts';

export interface MlpPolicyConfig {
  batch: number;
  obs: number;
  hidden: number[];
  actions: number;
  act?: Activation;
}

export interface MlpPolicy {
  graph: Graph;
  loss: Tensor;
  logp: Tensor;
  logits: Tensor;
  params: Tensor[];
}

export function mlpPolicyGraph(cfg: MlpPolicyConfig, rng: Rng): MlpPolicy {
  const g = new Graph();
  const obs = g.input('obs', [cfg.batch, cfg.obs]);
  const mask = g.input('mask', [cfg.batch, cfg.actions]);
  const actions = g.input('actions', [cfg.batch], 'u32');
  const adv = g.input('adv', [cfg.batch]);
  const params: Tensor[] = [];
  let h = obs;
  let width = cfg.obs;
  const sizes = [...cfg.hidden, cfg.actions];
  sizes.forEach((out, i) => {
    const w = g.param(`w${i}`, [width, out], glorot(rng, width, out));
    const b = g.param(`b${i}`, [out], uniform(rng, out, 0.1));
    params.push(w, b);
    h = g.linear(h, w, b, i === sizes.length - 1 ? 'none' : (cfg.act ?? 'tanh'));
    width = out;
  });
  const logits = h;
  const logp = g.logSoftmax(logits, mask);
  const taken = g.pick(logp, actions);
  const loss = g.scale(g.mean(g.mul(taken, adv)), -1);
  return { graph: g, loss, logp, logits, params };
}

/** Random inputs for one step: observations, a mask with ≥ 1 allowed action per row, allowed actions, advantages. */
export function mlpPolicyInputs(
  cfg: MlpPolicyConfig,
  rng: Rng,
): { obs: Float32Array; mask: Float32Array; actions: Uint32Array; adv: Float32Array } {
  const obs = uniform(rng, cfg.batch * cfg.obs, 1);
  const mask = new Float32Array(cfg.batch * cfg.actions);
  const actions = new Uint32Array(cfg.batch);
  for (let r = 0; r < cfg.batch; r++) {
    const allowed: number[] = [];
    for (let a = 0; a < cfg.actions; a++) {
      if (rng.next() < 0.7) {
        mask[r * cfg.actions + a] = 1;
        allowed.push(a);
      }
    }
    if (allowed.length === 0) {
      mask[r * cfg.actions] = 1;
      allowed.push(0);
    }
    actions[r] = rng.pick(allowed);
  }
  const adv = uniform(rng, cfg.batch, 1);
  return { obs, mask, actions, adv };
}
