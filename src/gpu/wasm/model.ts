/**
 * The wasm backend: the CPU backend's model (src/gpu/cpu/model.ts, forward reuse and live rows
 * included) with every array in one WebAssembly memory and the heavy kernels run by the SIMD
 * module (kernels.ts), so no call copies its operands. Ops without a wasm kernel run the
 * TypeScript ones on the same arrays.
 */
import type { Graph } from '../graph.ts';
import { size } from '../graph.ts';
import { paramLayout } from '../layout.ts';
import type { CompileOptions } from '../model.ts';
import { CpuModel } from '../cpu/model.ts';
import { statsLength } from '../cpu/runtime.ts';
import { WasmArena, arenaFloats, packedBFloats, wasmKernels } from './kernels.ts';
import type { ThreadSpawner } from './threads.ts';

/**
 * Lengths of the arrays CpuModel's constructor allocates (the four arenas, then each non-parameter
 * node's value and gradient, and its statistics): the arena is sized from them, and a mismatch
 * fails loudly ("wasm arena exhausted").
 */
function modelArrayLengths(graph: Graph): number[] {
  const total = paramLayout(graph).total;
  const out = [total, total, total, total];
  for (const n of graph.nodes) {
    const len = size(n.shape);
    if (n.op.kind !== 'param') {
      out.push(len);
      if (n.requiresGrad) out.push(len);
    }
    const stats = statsLength(graph, n);
    if (stats > 0) out.push(stats);
  }
  return [...out, ...weightPackLengths(graph)];
}

/**
 * Floats of the packs of weights (kernels.ts `packedB`): one per weight, form (B or Bᵀ) and shape
 * a one-batch product reads it as B in — the forward's, and the backward's dA = dC·op(B)ᵀ.
 */
function weightPackLengths(graph: Graph): number[] {
  const packs = new Map<string, number>();
  for (const n of graph.nodes) {
    const op = n.op;
    if (op.kind !== 'matmul' || op.batch !== 1 || graph.node(op.b).op.kind !== 'param') continue;
    packs.set(`${op.b}:${+op.transB}:${op.n}:${op.k}`, packedBFloats(op.n, op.k));
    // Backward, gA: op.transA ? B·dCᵀ-form (B is A there) : dC·op(B)ᵀ with B as B, k ↔ n.
    if (graph.node(op.a).requiresGrad && !op.transA)
      packs.set(`${op.b}:${+!op.transB}:${op.k}:${op.n}`, packedBFloats(op.k, op.n));
  }
  return [...packs.values()];
}

const arenas = new WeakMap<CpuModel, WasmArena>();

/** Kernel calls the module ran for a wasm model, by kernel name (tests, profiling); undefined for other models. */
export function wasmKernelCalls(model: CpuModel): ReadonlyMap<string, number> | undefined {
  return arenas.get(model)?.calls;
}

/**
 * A wasm model; with `spawn`, large matmuls run on two threads (bit-identical), and when the thread
 * cannot be started the model runs on one. `dispose()` stops the thread.
 */
export async function createWasmModel(
  graph: Graph,
  opts: CompileOptions = {},
  spawn?: ThreadSpawner,
): Promise<CpuModel> {
  const floats = arenaFloats(modelArrayLengths(graph));
  let arena: WasmArena;
  try {
    arena = await WasmArena.create(floats, spawn);
  } catch (e) {
    if (!spawn) throw e;
    arena = await WasmArena.create(floats);
  }
  const model = new CpuModel(graph, opts, {
    backend: 'wasm',
    kernels: wasmKernels(arena),
    f32: (len) => arena.f32(len),
    u32: (len) => arena.u32(len),
    weights: (params) => arena.setWeights(params),
    weightsChanged: () => arena.weightsChanged(),
  });
  arenas.set(model, arena);
  const dispose = model.dispose.bind(model);
  model.dispose = () => {
    arena.close();
    dispose();
  };
  return model;
}
