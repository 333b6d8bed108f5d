/**
 * Causal attention on WebGPU (attention.wgsl scores in lower-triangle tiles, attention_rows.wgsl
 * softmax per row, attention_mix.wgsl, attention_dscores.wgsl; planned by plan-attention.ts) against
 * the CPU backend's causalAttention on the adapter the suite finds (SwiftShader on a machine
 * without a GPU): odd sequence lengths across tile edges, 1, 3 and 4 heads, head widths that are
 * not multiples of 4 nor of the 16-column chunk, packed segments on and off, forward values and
 * the gradients of q, k and v (src/lm/attention-gpu.test.ts runs a GPT-2-style graph).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { CpuModel } from '../cpu/model.ts';
import { Graph } from '../graph.ts';
import { uniform } from '../init.ts';
import { nodeGpu } from '../node-gpu.ts';
import { worstError } from '../testing/cases.ts';
import { GpuContext } from './device.ts';
import { GpuModel } from './model.ts';
import { ATTENTION_TILE, attentionTiles } from './plan-attention.ts';
import { backwardCalls } from './plan-backward.ts';
import { forwardCalls } from './plan-forward.ts';

let ctx: GpuContext;

beforeAll(async () => {
  const c = await GpuContext.create({ gpu: await nodeGpu() });
  if (!c) throw new Error('no WebGPU adapter: install libvulkan1 and chromium (SwiftShader) or run on a GPU');
  ctx = c;
});

afterAll(() => {
  expect(ctx.errors).toEqual([]);
  ctx.dispose();
});

// The CPU sums dots in f64 and rounds per store; the kernels sum in f32 (same order).
const FWD = { abs: 1e-5, rel: 1e-4 };
const GRAD = { abs: 1e-4, rel: 1e-3 };

interface Case {
  batch: number;
  seq: number;
  heads: number;
  hd: number;
  segments: boolean;
}

/** q, k, v as parameters; loss = Σ att ⊙ w with a random w, so every output has a gradient. */
function attentionGraph(c: Case, seed: number) {
  const rng = createRng(seed);
  const d = c.heads * c.hd;
  const rows = c.batch * c.seq;
  const g = new Graph();
  const q = g.param('q', [rows, d], uniform(rng, rows * d, 1.5));
  const k = g.param('k', [rows, d], uniform(rng, rows * d, 1.5));
  const v = g.param('v', [rows, d], uniform(rng, rows * d, 1));
  const segments = c.segments ? g.input('segments', [rows], 'u32') : undefined;
  const att = g.causalAttention(q, k, v, { batch: c.batch, seq: c.seq, heads: c.heads, segments });
  const w = g.input('w', [rows, d]);
  const loss = g.sum(g.sum(g.mul(att, w)));
  const inputs: Record<string, Float32Array | Uint32Array> = { w: uniform(rng, rows * d, 1) };
  if (c.segments) {
    // Segments of uneven lengths (1 to 9 rows), restarting in each sequence.
    const s = new Uint32Array(rows);
    for (let b = 0; b < c.batch; b++) {
      let id = 0;
      let left = 1 + rng.int(9);
      for (let t = 0; t < c.seq; t++) {
        if (left === 0) {
          id += 1;
          left = 1 + rng.int(9);
        }
        s[b * c.seq + t] = id;
        left -= 1;
      }
    }
    inputs.segments = s;
  }
  return { g, q, k, v, att, loss, inputs };
}

const CASES: Case[] = [
  { batch: 2, seq: 1, heads: 3, hd: 5, segments: false },
  { batch: 1, seq: 7, heads: 1, hd: 3, segments: false },
  { batch: 3, seq: 33, heads: 4, hd: 6, segments: false },
  { batch: 2, seq: 33, heads: 3, hd: 17, segments: true },
  { batch: 1, seq: 130, heads: 4, hd: 7, segments: false },
  { batch: 1, seq: 130, heads: 1, hd: 35, segments: true },
  { batch: 1, seq: 65, heads: 3, hd: 16, segments: true },
  // Two column tiles of the mixed output (hd > 64).
  { batch: 1, seq: 70, heads: 2, hd: 70, segments: false },
];

describe('causal attention on WebGPU matches the CPU backend', () => {
  for (const c of CASES) {
    const name = `batch ${c.batch}, seq ${c.seq}, ${c.heads} heads of ${c.hd}, segments ${c.segments ? 'on' : 'off'}`;
    it(name, async () => {
      const t = attentionGraph(c, 11 + c.seq + c.hd);
      const cpu = new CpuModel(t.g, { loss: t.loss });
      const gpu = new GpuModel(ctx, t.g, { loss: t.loss });
      try {
        for (const [k, x] of Object.entries(t.inputs)) {
          cpu.setInput(k, x);
          gpu.setInput(k, x);
        }
        const rc = await cpu.step();
        const rg = await gpu.step();
        expect(Math.abs(rg.loss - rc.loss)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(rc.loss)));
        const out = await gpu.read(t.att);
        expect(worstError(out, await cpu.read(t.att), FWD.abs, FWD.rel)).toBeLessThanOrEqual(1);
        for (const p of [t.q, t.k, t.v]) {
          const gg = await gpu.readGrad(p);
          const gc = await cpu.readGrad(p);
          if (c.seq > 1 || p === t.v) expect(gc.some((x) => x !== 0)).toBe(true);
          expect(worstError(gg, gc, GRAD.abs, GRAD.rel)).toBeLessThanOrEqual(1);
        }
      } finally {
        gpu.dispose();
      }
    });
  }
});

describe('attention work is spread over the (query, key) pairs', () => {
  const plan = (c: Case) => {
    const t = attentionGraph(c, 1);
    const node = t.g.node(t.att);
    return [...forwardCalls(t.g, node), ...backwardCalls(t.g, node)];
  };
  const invocations = (wg: [number, number, number] | undefined, per: number): number =>
    per * (wg ?? [0, 0, 0]).reduce((a, b) => a * b, 1);

  it('wide heads: scores and score gradients in 64x64 tiles of the lower triangle, 16 pairs per invocation at most', () => {
    const c: Case = { batch: 2, seq: 130, heads: 3, hd: 64, segments: false };
    const calls = plan(c);
    const pairs = c.batch * c.heads * ((c.seq * (c.seq + 1)) / 2);
    for (const kernel of ['attention', 'attention_dscores_tiled'] as const) {
      const call = calls.find((x) => x.kernel === kernel);
      expect(call, kernel).toBeDefined();
      expect(invocations(call?.wg, 256) * 16).toBeGreaterThanOrEqual(pairs);
      // No tile above the diagonal is dispatched: ⌈130/64⌉ = 3 tiles a side, 6 in the triangle.
      expect(call?.wg).toEqual([6, c.batch * c.heads, 1]);
    }
    // Products: 64 x 64 output tiles, 16 outputs per invocation.
    const mixes = calls.filter((x) => x.kernel === 'attention_mix_tiled');
    expect(mixes.length).toBe(4);
    for (const m of mixes) expect(m.wg).toEqual([3, 1, c.batch * c.heads]);
    // The row softmax is its own pass, one invocation per (b, h, i).
    expect(calls.map((x) => x.kernel)).toContain('attention_rows');
    expect(attentionTiles(1, 1, ATTENTION_TILE)).toEqual([1, 1, 1]);
    expect(attentionTiles(1, 1, ATTENTION_TILE + 1)).toEqual([3, 1, 1]);
  });

  it('narrow heads: one invocation per (query, key) pair, none looping over the keys', () => {
    const c: Case = { batch: 2, seq: 130, heads: 3, hd: 8, segments: false };
    const calls = plan(c);
    const all = c.batch * c.heads * c.seq * c.seq;
    for (const kernel of ['attention_pairs', 'attention_dscores'] as const) {
      const call = calls.find((x) => x.kernel === kernel);
      expect(call, kernel).toBeDefined();
      expect(invocations(call?.wg, 256)).toBeGreaterThanOrEqual(all);
    }
    expect(calls.map((x) => x.kernel)).toContain('attention_rows');
  });
});
