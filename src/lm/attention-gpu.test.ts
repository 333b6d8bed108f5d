/**
 * A GPT-2-style training graph (graph.ts) with the WebGPU backend's causal attention kernels
 * (src/gpu/kernels/attention*.wgsl) against the CPU backend: one step, sequences longer than one
 * 64-row score tile, one example per row and packed segments; loss, logits and every parameter
 * gradient; and, with a hardware adapter's lanes products, the grouped gradient products against
 * the ungrouped plan, bit for bit. Fails (does not skip) without an adapter, like
 * src/gpu/webgpu/webgpu.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../core/rng.ts';
import { CpuModel, chooseBackend, compile, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { buildTinyGptGraph } from './graph.ts';
import { TinyGptConfigSchema } from './spec.ts';

let choice: BackendChoice;

beforeAll(async () => {
  choice = await chooseBackend('webgpu', { gpu: await nodeGpu() });
  if (!choice.ctx) throw new Error('no WebGPU device');
});

afterAll(() => {
  expect(choice.ctx?.errors).toEqual([]);
  choice.ctx?.dispose();
});

/** |a − b| ≤ abs + rel·|b| everywhere. */
function close(a: Float32Array, b: Float32Array, abs: number, rel: number, what: string): void {
  expect(a.length, what).toBe(b.length);
  let worst = 0;
  b.forEach((x, i) => {
    const e = Math.abs((a[i] as number) - x) / (abs + rel * Math.abs(x));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  });
  expect(worst, what).toBeLessThanOrEqual(1);
}

describe('a GPT-2-style graph (src/lm) trains alike on WebGPU and the CPU', () => {
  // Heads of 6 columns (the one-entry-per-invocation kernels) and of 33 (the tiled ones).
  for (const [packed, nEmbd, nHead] of [
    [false, 18, 3],
    [true, 18, 3],
    [false, 66, 2],
    [true, 66, 2],
  ] as const) {
    it(`one step, heads of ${nEmbd / nHead}, ${packed ? 'packed segments' : 'one example per row'}: loss and every gradient`, async () => {
      const config = TinyGptConfigSchema.parse({ vocabSize: 37, nPositions: 80, nEmbd, nHead, nLayer: 2 });
      const batch = 2;
      const seq = 70;
      const tg = buildTinyGptGraph(config, { batch, seq, packed, seed: 5 });
      const rng = createRng(9);
      const rows = batch * seq;
      const u32 = (n: number, max: number) => Uint32Array.from({ length: n }, () => rng.int(max));
      const inputs: Record<string, Float32Array | Uint32Array> = {
        ids: u32(rows, config.vocabSize),
        positions: Uint32Array.from({ length: rows }, (_, i) => (i % seq) % 5),
        targets: u32(rows, config.vocabSize),
        weights: Float32Array.from({ length: rows }, (_, i) => (i % 4 === 0 ? 0 : 1 / rows)),
      };
      if (packed) inputs.segments = Uint32Array.from({ length: rows }, (_, i) => Math.floor((i % seq) / 9));
      const cpu = new CpuModel(tg.graph, { loss: tg.loss });
      const gpu = await compile(choice, tg.graph, { loss: tg.loss });
      try {
        for (const [k, x] of Object.entries(inputs)) {
          cpu.setInput(k, x);
          gpu.setInput(k, x);
        }
        const rc = await cpu.step();
        const rg = await gpu.step();
        expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(rc.loss)));
        close(await gpu.read(tg.logits), await cpu.read(tg.logits), 1e-5, 1e-4, 'logits');
        for (const [name, p] of tg.params)
          close(await gpu.readGrad(p), await cpu.readGrad(p), 1e-4, 1e-3, name);
      } finally {
        gpu.dispose();
      }
    });
  }

  it("with lanes products (a hardware adapter's plan): grouped gradient products give the ungrouped plan's bits", async () => {
    // Small enough that the query, key and value projections of each block's normalised input
    // run as lanes products, whose weight and input gradients then group (plan-grads.ts).
    const config = TinyGptConfigSchema.parse({
      vocabSize: 37,
      nPositions: 80,
      nEmbd: 18,
      nHead: 3,
      nLayer: 2,
    });
    const batch = 2;
    const seq = 70;
    const tg = buildTinyGptGraph(config, { batch, seq, seed: 5 });
    const rng = createRng(4);
    const rows = batch * seq;
    const u32 = (n: number, max: number) => Uint32Array.from({ length: n }, () => rng.int(max));
    const inputs: Record<string, Float32Array | Uint32Array> = {
      ids: u32(rows, config.vocabSize),
      positions: Uint32Array.from({ length: rows }, (_, i) => i % seq),
      targets: u32(rows, config.vocabSize),
      weights: Float32Array.from({ length: rows }, () => 1 / rows),
    };
    const bits = (x: Float32Array): number[] => Array.from(new Uint32Array(x.buffer, x.byteOffset, x.length));
    const models = await Promise.all(
      [true, false].map((gradGroups) =>
        compile({ ...choice, lanes: true, gradGroups }, tg.graph, { loss: tg.loss }),
      ),
    );
    try {
      const seen = [];
      const dispatches: number[] = [];
      for (const m of models) {
        for (const [k, x] of Object.entries(inputs)) m.setInput(k, x);
        choice.ctx?.resetCounters();
        const r = await m.step();
        dispatches.push(choice.ctx?.resetCounters().dispatches ?? 0);
        const grads = [];
        for (const [, p] of tg.params) grads.push(bits(await m.readGrad(p)));
        seen.push({ loss: r.loss, logits: bits(await m.read(tg.logits)), grads });
      }
      expect(seen[0]).toEqual(seen[1]);
      // Two blocks, each with a group of three weight gradients and one of three input gradients.
      expect((dispatches[1] as number) - (dispatches[0] as number)).toBe(8);
      expect(seen[0]?.grads.some((g) => g.some((b) => b !== 0))).toBe(true);
    } finally {
      for (const m of models) m.dispose();
    }
  });
});
