import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../mlp.ts';
import { CpuModel } from './model.ts';

const cfg = { batch: 6, obs: 5, hidden: [7, 4], actions: 3 };

/** A model of the MLP policy-gradient graph with the same parameters and inputs each time. */
function fresh(): { model: CpuModel; inputs: ReturnType<typeof mlpPolicyInputs>; ops: number } {
  const p = mlpPolicyGraph(cfg, createRng(1));
  const model = new CpuModel(p.graph, { loss: p.loss, optimizer: { lr: 0.05 } });
  const inputs = mlpPolicyInputs(cfg, createRng(2));
  for (const [k, v] of Object.entries(inputs)) model.setInput(k, v);
  const ops = p.graph.nodes.filter((n) => n.op.kind !== 'input' && n.op.kind !== 'param').length;
  return { model, inputs, ops };
}

const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));

describe('CPU forward reuse', () => {
  it('recomputes only the nodes downstream of what changed, with the numbers of a full pass', async () => {
    const { model, inputs, ops } = fresh();
    await model.step({ backward: false });
    expect(model.computed).toBe(ops);
    // Same bits again: nothing to recompute.
    model.setInput('obs', Float32Array.from(inputs.obs));
    await model.step({ backward: false });
    expect(model.computed).toBe(0);
    // A new advantage changes only the loss (mul, mean, scale): the network's nodes keep their values.
    const adv = Float32Array.from(inputs.adv, (x) => -2 * x);
    model.setInput('adv', adv);
    const partial = await model.step({ update: false });
    expect(model.computed).toBe(3);
    const full = fresh();
    full.model.setInput('adv', adv);
    const want = await full.model.step({ update: false });
    expect(partial.loss).toBe(want.loss);
    expect(partial.gradNorm).toBe(want.gradNorm);
    const w0 = full.model.graph.params()[0];
    if (!w0) throw new Error('no parameters');
    expect(bits(await model.readGrad(w0))).toEqual(bits(await full.model.readGrad(w0)));
  });

  it('recomputes everything after an optimizer update or a new parameter state', async () => {
    const { model, ops } = fresh();
    await model.step();
    const a = await model.step({ backward: false });
    expect(model.computed).toBe(ops);
    const state = await model.exportState();
    const other = fresh();
    other.model.importState(state);
    const b = await other.model.step({ backward: false });
    expect(b.loss).toBe(a.loss);
    // −0 and 0 are different bits: the input counts as changed.
    const obs = new Float32Array(cfg.batch * cfg.obs);
    model.setInput('obs', obs);
    await model.step({ backward: false });
    obs[0] = -0;
    model.setInput('obs', obs);
    await model.step({ backward: false });
    expect(model.computed).toBeGreaterThan(0);
  });
});
