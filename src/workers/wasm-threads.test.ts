import { afterAll, describe, expect, it } from 'vitest';
import { WasmArena, wasmKernels } from '../gpu/node-gpu.ts';
import { browserThreadSpawner, threadsUnavailableReason } from './wasm-threads.ts';
import { nodeThreadSpawner } from './wasm-threads.node.ts';

function fill(a: Float32Array, seed: number): void {
  let s = seed;
  for (let i = 0; i < a.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = (s / 2 ** 32 - 0.5) * 8;
  }
}

const FLOATS = 2_000_000;
const one = await WasmArena.create(FLOATS);
const two = await WasmArena.create(FLOATS, nodeThreadSpawner);
afterAll(() => two.close());

describe('the wasm matmul on two threads (worker_threads, shared memory)', () => {
  // [batch, m, n, k]: odd sizes, rows not a multiple of the micro-kernel, k over one KC slice, n over one NC block.
  const SHAPES: [number, number, number, number][] = [
    [1, 8, 8, 8],
    [1, 9, 3, 5],
    [1, 37, 29, 301],
    [2, 65, 17, 33],
    [1, 130, 513, 70],
    [1, 257, 40, 260],
  ];
  it.each(SHAPES)(
    'batch %i, %i×%i (k %i): bit-identical to one thread in all four forms, and accumulating',
    (batch, m, n, k) => {
      two.threads!.minSplitMacs = 0;
      const k1 = wasmKernels(one);
      const k2 = wasmKernels(two);
      const len = batch * Math.max(m, k) * Math.max(n, k);
      const [A1, B1, C1] = [one.f32(len), one.f32(len), one.f32(batch * m * n)];
      const [A2, B2, C2] = [two.f32(len), two.f32(len), two.f32(batch * m * n)];
      for (const [transA, transB] of [
        [false, false],
        [false, true],
        [true, false],
        [true, true],
      ] as const) {
        for (const accumulate of [false, true]) {
          for (const [A, B, C] of [
            [A1, B1, C1],
            [A2, B2, C2],
          ] as const) {
            fill(A, 3);
            fill(B, 5);
            fill(C, 7);
          }
          const before = two.calls.get('matmul2') ?? 0;
          k1.matmul(A1, B1, C1, batch, m, n, k, transA, transB, accumulate);
          k2.matmul(A2, B2, C2, batch, m, n, k, transA, transB, accumulate);
          expect(two.calls.get('matmul2'), 'the product ran on two threads').toBe(before + 1);
          const differ = C2.findIndex((v, i) => v !== C1[i]);
          expect(
            differ,
            `first differing element (transA ${transA}, transB ${transB}, acc ${accumulate})`,
          ).toBe(-1);
          if (accumulate) continue;
          // And right: the last element of the first product against a float64 sum.
          const i = m - 1;
          const j = n - 1;
          let ref = 0;
          for (let p = 0; p < k; p++)
            ref +=
              (A1[transA ? p * m + i : i * k + p] as number) * (B1[transB ? j * k + p : p * n + j] as number);
          expect(Math.abs((C2[i * n + j] as number) - ref)).toBeLessThan(1e-4 * k);
        }
      }
    },
  );

  it('a worker that never runs does not hold the product up: the caller runs every chunk itself', async () => {
    // A spawner whose "worker" is never started: as if the scheduler gave the thread no time.
    const idle = await WasmArena.create(200_000, () => Promise.resolve({ terminate: () => undefined }));
    idle.threads!.minSplitMacs = 0;
    const [m, n, k] = [67, 33, 45];
    const [A1, B1, C1] = [one.f32(m * k), one.f32(k * n), one.f32(m * n)];
    const [A2, B2, C2] = [idle.f32(m * k), idle.f32(k * n), idle.f32(m * n)];
    fill(A1, 3);
    fill(B1, 5);
    A2.set(A1);
    B2.set(B1);
    wasmKernels(one).matmul(A1, B1, C1, 1, m, n, k, false, false, false);
    wasmKernels(idle).matmul(A2, B2, C2, 1, m, n, k, false, false, false);
    expect(idle.calls.get('matmul2'), 'split into chunks').toBe(1);
    expect(idle.threads!.workerChunks).toBe(0);
    expect(C2.findIndex((v, i) => v !== C1[i])).toBe(-1);
    idle.close();
  });

  it('small products stay on the calling thread', () => {
    two.threads!.minSplitMacs = 1 << 18;
    const k2 = wasmKernels(two);
    const [A, B, C] = [two.f32(64), two.f32(64), two.f32(64)];
    const before = two.calls.get('matmul2') ?? 0;
    k2.matmul(A, B, C, 1, 8, 8, 8, false, false, false);
    expect(two.calls.get('matmul2') ?? 0).toBe(before);
  });

  it('a page without cross-origin isolation (here: no Worker global) gets no spawner, with the reason', () => {
    expect(browserThreadSpawner()).toBeNull();
    expect(threadsUnavailableReason()).toMatch(/Worker|cross-origin/);
  });
});
