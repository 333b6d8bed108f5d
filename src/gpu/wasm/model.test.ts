import { describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph, type Tensor } from '../graph.ts';
import * as init from '../init.ts';
import { mlpPolicyGraph, mlpPolicyInputs } from '../mlp.ts';
import { CASE_NAMES, buildCase, tiedTables, worstError } from '../testing/cases.ts';
import { createWasmModel, wasmKernelCalls } from './model.ts';

// The same tolerances as the WebGPU parity tests: both sides round to f32 per op; sums run in a
// different order (the wasm matmul in f32x4 lanes and K blocks) and exp/log differ in the last ulp.
const FWD = { abs: 1e-5, rel: 1e-4 };
const GRAD = { abs: 1e-4, rel: 1e-3 };
// Central differences, as in src/gpu/cpu/ops.test.ts.
const H = 5e-3;
const TOL = 1e-2;

describe('wasm backend matches the TypeScript reference on every op case (forward and backward)', () => {
  for (const name of CASE_NAMES) {
    it(name, async () => {
      const c = buildCase(name, createRng(3));
      const ref = new CpuModel(c.graph, { loss: c.loss });
      const wasm = await createWasmModel(c.graph, { loss: c.loss });
      expect(wasm.backend).toBe('wasm');
      for (const [k, v] of Object.entries(c.inputs)) {
        ref.setInput(k, v);
        wasm.setInput(k, v);
      }
      const r = await ref.step();
      const w = await wasm.step();
      expect(worstError(await wasm.read(c.out), await ref.read(c.out), FWD.abs, FWD.rel)).toBeLessThanOrEqual(
        1,
      );
      expect(Math.abs(w.loss - r.loss)).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(r.loss)));
      for (const p of c.params) {
        expect(
          worstError(await wasm.readGrad(p), await ref.readGrad(p), GRAD.abs, GRAD.rel),
          `grad of ${p.id}`,
        ).toBeLessThanOrEqual(1);
      }
      expect(Math.abs(w.gradNorm - r.gradNorm)).toBeLessThanOrEqual(1e-3 * Math.max(1, r.gradNorm));
      ran.push(...(wasmKernelCalls(wasm)?.keys() ?? []));
    });
  }
  const ran: string[] = [];
  it('the cases ran every kernel in the module (none fell back to TypeScript)', () => {
    const want = [
      'matmul',
      'biasAct',
      'biasActGrad',
      'softmax',
      'softmaxGrad',
      'gatherRows',
      'scatterAddRows',
    ];
    want.push('layerNorm', 'layerNormGrad', 'crossEntropy', 'crossEntropyGrad', 'causalAttention');
    want.push('causalAttentionGrad', 'matmulPacked', 'packB', 'binary', 'binaryGrad', 'unary', 'unaryGrad');
    expect(new Set(ran)).toEqual(new Set(want));
  });
});

describe('wasm shared prefixes', () => {
  // Rows 0, 3, 6 share their first d columns, rows 1, 4, 7 too; rows 2, 5, 8 have their own.
  const [m, k, n, d] = [9, 23, 13, 12];
  function sharedRows(rng: ReturnType<typeof createRng>): Float32Array {
    const data = new Float32Array(m * k);
    for (let i = 0; i < data.length; i++) data[i] = rng.next() < 0.3 ? 0 : rng.next() * 2 - 1;
    for (let i = 3; i < m; i++) if (i % 3 !== 2) data.copyWithin(i * k, (i % 3) * k, (i % 3) * k + d);
    return data;
  }
  function productGraph(rng: ReturnType<typeof createRng>) {
    const g = new Graph();
    const a = g.input('a', [m, k]);
    const w = g.param('w', [k, n], init.uniform(rng, k * n, 1));
    return { graph: g, y: g.matmul(a, w) };
  }
  const bits = (x: Float32Array) => [...new Uint32Array(x.buffer, x.byteOffset, x.length)];

  it('the product sums each prefix once in the module and matches the TypeScript reference', async () => {
    const { graph, y } = productGraph(createRng(4));
    const data = sharedRows(createRng(5));
    const shared = await createWasmModel(graph, { sharedPrefix: { a: d } });
    const ref = new CpuModel(graph);
    for (const model of [shared, ref]) model.setInput('a', data);
    await shared.step();
    await ref.step();
    expect(worstError(await shared.read(y), await ref.read(y), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
    expect(wasmKernelCalls(shared)?.get('matmulSharedPrefix')).toBe(1);
  });

  it('a row gives the same bits whether its prefix was summed for it or kept from another row', async () => {
    const { graph, y } = productGraph(createRng(4));
    const data = sharedRows(createRng(6));
    const all = await createWasmModel(graph, { sharedPrefix: { a: d } });
    all.setInput('a', data);
    await all.step();
    const out = await all.read(y);
    // Row 4 alone (its prefix summed for it), padded with zero rows, in a fresh model.
    for (const row of [4, 5, 6]) {
      const alone = await createWasmModel(graph, { sharedPrefix: { a: d } });
      const one = new Float32Array(m * k);
      one.set(data.subarray(row * k, (row + 1) * k));
      alone.setInput('a', one, 1);
      await alone.step();
      expect(bits((await alone.read(y)).subarray(0, n))).toEqual(bits(out.subarray(row * n, (row + 1) * n)));
      // And again in the first model, after the other rows were seen: a kept prefix.
      all.setInput('a', one, 1);
      await all.step();
      expect(bits((await all.read(y)).subarray(0, n))).toEqual(bits(out.subarray(row * n, (row + 1) * n)));
    }
  });

  it('new weights drop the kept prefix sums', async () => {
    const { graph, y } = productGraph(createRng(4));
    const data = sharedRows(createRng(7));
    const shared = await createWasmModel(graph, { sharedPrefix: { a: d } });
    const plain = await createWasmModel(graph);
    shared.setInput('a', data);
    await shared.step();
    const state = await shared.exportState();
    const params = Float32Array.from(state.params, (x) => x * 0.5 + 0.25);
    for (const model of [shared, plain]) {
      model.importState({ ...state, params });
      model.setInput('a', data);
      await model.step();
    }
    expect(worstError(await shared.read(y), await plain.read(y), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
  });
});

describe('wasm backend gradients against finite differences of its own loss', () => {
  for (const name of CASE_NAMES) {
    it(name, async () => {
      const c = buildCase(name, createRng(11));
      const model = await createWasmModel(c.graph, { loss: c.loss });
      for (const [k, v] of Object.entries(c.inputs)) model.setInput(k, v);
      await model.step();
      const state = await model.exportState();
      const rng = createRng(5);
      let checked = 0;
      for (const p of c.params) {
        const analytic = await model.readGrad(p);
        const values = await model.read(p);
        const offset = findOffset(state.params, values);
        for (let s = 0; s < Math.min(6, values.length); s++) {
          const i = rng.int(values.length);
          const lossAt = async (delta: number): Promise<number> => {
            const params = state.params.slice();
            params[offset + i] = (values[i] as number) + delta;
            model.importState({ ...state, params });
            return (await model.step({ backward: false })).loss;
          };
          const fd = ((await lossAt(H)) - (await lossAt(-H))) / (2 * H);
          const g = analytic[i] as number;
          if (!c.smooth && Math.abs(fd - g) > TOL * Math.max(1, Math.abs(g))) continue;
          expect(Math.abs(fd - g), `${name} [${i}] fd=${fd} grad=${g}`).toBeLessThanOrEqual(
            TOL * Math.max(1, Math.abs(g)),
          );
          checked++;
        }
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});

function findOffset(arena: Float32Array, values: Float32Array): number {
  outer: for (let o = 0; o + values.length <= arena.length; o++) {
    for (let j = 0; j < values.length; j++) if (arena[o + j] !== values[j]) continue outer;
    return o;
  }
  throw new Error('parameter not found in arena');
}

const cfg = { batch: 37, obs: 29, hidden: [48, 33], actions: 7 };

async function train(model: Awaited<ReturnType<typeof createWasmModel>> | CpuModel, steps: number) {
  const inputs = mlpPolicyInputs(cfg, createRng(2));
  for (const [k, v] of Object.entries(inputs)) model.setInput(k, v);
  const losses: number[] = [];
  for (let s = 0; s < steps; s++) losses.push((await model.step()).loss);
  return { losses, state: await model.exportState() };
}

describe('wasm backend training', () => {
  const opts = (loss: Tensor) => ({
    loss,
    optimizer: { lr: 0.01, clipNorm: 0.5, weightDecay: 0.01 },
  });

  it('five AdamW steps with clipping follow the TypeScript backend', async () => {
    const p = mlpPolicyGraph(cfg, createRng(1));
    const ref = await train(new CpuModel(p.graph, opts(p.loss)), 5);
    const model = await createWasmModel(p.graph, opts(p.loss));
    const got = await train(model, 5);
    for (let s = 0; s < 5; s++)
      expect(Math.abs((got.losses[s] as number) - (ref.losses[s] as number))).toBeLessThanOrEqual(1e-4);
    expect(worstError(got.state.params, ref.state.params, 1e-4, 1e-3)).toBeLessThanOrEqual(1);
    expect(got.state.t).toBe(5);
    const calls = wasmKernelCalls(model);
    expect(calls?.get('adam')).toBe(5);
  });

  it('a seeded run is bit-identical run to run', async () => {
    const runs = [];
    for (let r = 0; r < 2; r++) {
      const p = mlpPolicyGraph(cfg, createRng(1));
      runs.push(await train(await createWasmModel(p.graph, opts(p.loss)), 4));
    }
    const [a, b] = runs as [Awaited<ReturnType<typeof train>>, Awaited<ReturnType<typeof train>>];
    expect(a.losses).toEqual(b.losses);
    const bits = (x: Float32Array) => [...new Uint32Array(x.buffer, x.byteOffset, x.length)];
    expect(bits(a.state.params)).toEqual(bits(b.state.params));
    expect(bits(a.state.m)).toEqual(bits(b.state.m));
    expect(bits(a.state.v)).toEqual(bits(b.state.v));
  });

  it('after an Adam step the next forward reads the new weights, not a stale pack of the old ones', async () => {
    const p = mlpPolicyGraph(cfg, createRng(1));
    const model = await createWasmModel(p.graph, opts(p.loss));
    const inputs = mlpPolicyInputs(cfg, createRng(2));
    for (const [k, v] of Object.entries(inputs)) model.setInput(k, v);
    await model.step({ backward: false });
    await model.step({ backward: false });
    const packs = wasmKernelCalls(model)?.get('packB') ?? 0;
    expect(packs, 'the weights were packed').toBeGreaterThan(0);
    await model.step(); // forward, backward, Adam: the weights change
    const after = await model.step({ backward: false });
    expect(wasmKernelCalls(model)?.get('packB') ?? 0, 'repacked after the step').toBeGreaterThan(packs);
    // A fresh model on the stepped state (no packs yet) computes the same loss and output, bit for bit.
    const fresh = await createWasmModel(p.graph, opts(p.loss));
    fresh.importState(await model.exportState());
    for (const [k, v] of Object.entries(inputs)) fresh.setInput(k, v);
    const want = await fresh.step({ backward: false });
    expect(after.loss).toBe(want.loss);
    const bits = (x: Float32Array) => [...new Uint32Array(x.buffer, x.byteOffset, x.length)];
    expect(bits(await model.read(p.logits))).toEqual(bits(await fresh.read(p.logits)));
  });

  it('a table read by a lookup and a tied head sums both gradients', async () => {
    const t = tiedTables(createRng(4));
    const tied = await createWasmModel(t.tied.graph, { loss: t.tied.loss });
    const split = await createWasmModel(t.split.graph, { loss: t.split.loss });
    for (const [k, v] of Object.entries(t.inputs)) {
      tied.setInput(k, v);
      split.setInput(k, v);
    }
    await tied.step();
    await split.step();
    const [a, b] = await Promise.all(t.split.tables.map((x) => split.readGrad(x)));
    const sum = Float32Array.from(a as Float32Array, (x, i) => x + ((b as Float32Array)[i] as number));
    expect(worstError(await tied.readGrad(t.tied.table), sum, 1e-6, 1e-5)).toBeLessThanOrEqual(1);
  });
});
