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
import { PipelineCache } from './pipelines.ts';
import { ATTENTION_TILE, attentionBackward, attentionForward, attentionTiles } from './plan-attention.ts';
import type { Call } from './plan-calls.ts';
import { backwardCalls } from './plan-backward.ts';
import { forwardCalls } from './plan-forward.ts';

let ctx: GpuContext;
let cache: PipelineCache;

beforeAll(async () => {
  const c = await GpuContext.create({ gpu: await nodeGpu() });
  if (!c) throw new Error('no WebGPU adapter: install libvulkan1 and chromium (SwiftShader) or run on a GPU');
  ctx = c;
  cache = new PipelineCache(ctx.device);
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

/**
 * Runs attention calls on raw buffers: values and gradients by node id from `init` (zeros
 * otherwise), temporaries filled with NaN (an entry a kernel reads before any writes it shows up).
 * Returns the buffers named in `want`, as u32 bit patterns.
 */
async function runAttention(
  calls: Call[],
  init: Map<string, Float32Array | Uint32Array>,
  sizes: Map<string, number>,
  want: string[],
): Promise<Map<string, Uint32Array>> {
  const device = ctx.device;
  const owned: GPUBuffer[] = [];
  const S = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const make = (data: Float32Array | Uint32Array, usage = S): GPUBuffer => {
    const b = device.createBuffer({
      size: Math.max(16, data.byteLength),
      usage: usage | GPUBufferUsage.COPY_DST,
    });
    device.queue.writeBuffer(b, 0, data);
    owned.push(b);
    return b;
  };
  const bufs = new Map<string, GPUBuffer>();
  const get = (key: string, floats: number, fill = 0): GPUBuffer => {
    let b = bufs.get(key);
    if (!b) {
      b = make(init.get(key) ?? new Float32Array(Math.max(4, floats)).fill(fill));
      bufs.set(key, b);
    }
    return b;
  };
  const enc = device.createCommandEncoder();
  const pass = enc.beginComputePass();
  for (const call of calls) {
    const pipeline = cache.get(call.kernel, call.constants);
    const resources = call.refs.map((r) => {
      if (r.t === 'value' || r.t === 'grad') return get(`${r.t}:${r.id}`, sizes.get(`${r.t}:${r.id}`) ?? 4);
      if (r.t === 'temp') return get(`temp:${r.slot}`, r.floats, NaN);
      if (r.t === 'zeros') return get('zeros', r.floats);
      throw new Error(`unexpected ref ${r.t}`);
    });
    pass.setPipeline(pipeline);
    const u = make(new Uint32Array(call.uniform), GPUBufferUsage.UNIFORM);
    pass.setBindGroup(
      0,
      device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [u, ...resources].map((buffer, binding) => ({ binding, resource: { buffer } })),
      }),
    );
    pass.dispatchWorkgroups(...call.wg);
  }
  pass.end();
  const reads = want.map((key) => {
    const src = bufs.get(key);
    if (!src) throw new Error(`no buffer ${key}`);
    const r = device.createBuffer({
      size: src.size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    });
    owned.push(r);
    enc.copyBufferToBuffer(src, 0, r, 0, src.size);
    return r;
  });
  device.queue.submit([enc.finish()]);
  const out = new Map<string, Uint32Array>();
  for (const [i, r] of reads.entries()) {
    await r.mapAsync(GPUMapMode.READ);
    out.set(want[i] as string, new Uint32Array(r.getMappedRange().slice(0)));
    r.unmap();
  }
  for (const b of owned) b.destroy();
  return out;
}

describe('tiled and per-entry attention kernels give the same bits', () => {
  for (const c of [
    { batch: 2, seq: 130, heads: 2, hd: 35, segments: true },
    { batch: 1, seq: 97, heads: 1, hd: 64, segments: false },
    { batch: 1, seq: 40, heads: 3, hd: 20, segments: false },
  ] as Case[]) {
    it(`seq ${c.seq}, ${c.heads} heads of ${c.hd}, segments ${c.segments ? 'on' : 'off'}: output and the gradients of q, k, v`, async () => {
      const t = attentionGraph(c, 23 + c.hd);
      const node = t.g.node(t.att);
      const op = node.op;
      if (op.kind !== 'causalAttention') throw new Error('not attention');
      const rng = createRng(c.seq);
      const rows = c.batch * c.seq;
      const d = c.heads * c.hd;
      const init = new Map<string, Float32Array | Uint32Array>([
        [`value:${op.q}`, uniform(rng, rows * d, 1.5)],
        [`value:${op.k}`, uniform(rng, rows * d, 1.5)],
        [`value:${op.v}`, uniform(rng, rows * d, 1)],
        [`grad:${node.id}`, uniform(rng, rows * d, 1)],
      ]);
      if (op.segments !== null) init.set(`value:${op.segments}`, t.inputs.segments as Uint32Array);
      const sizes = new Map<string, number>();
      for (const id of [op.q, op.k, op.v, node.id]) {
        sizes.set(`value:${id}`, rows * d);
        sizes.set(`grad:${id}`, rows * d);
      }
      const want = [`value:${node.id}`, `grad:${op.q}`, `grad:${op.k}`, `grad:${op.v}`];
      const run = async (minTiled: number) => {
        const calls = [
          ...attentionForward(node, op, minTiled),
          ...attentionBackward(node, op, () => true, minTiled),
        ];
        return { calls, out: await runAttention(calls, init, sizes, want) };
      };
      const tiled = await run(1);
      const flat = await run(Infinity);
      expect(tiled.calls.map((x) => x.kernel)).toContain('attention_mix_tiled');
      expect(flat.calls.map((x) => x.kernel)).not.toContain('attention_mix_tiled');
      for (const key of want) {
        const a = tiled.out.get(key) as Uint32Array;
        const b = flat.out.get(key) as Uint32Array;
        expect(
          new Float32Array(a.buffer).some((x) => x !== 0 && Number.isFinite(x)),
          key,
        ).toBe(true);
        let diff = 0;
        a.forEach((x, i) => {
          if (x !== b[i]) diff += 1;
        });
        expect(diff, key).toBe(0);
      }
    });
  }
});
