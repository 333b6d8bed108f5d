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
import { WasmArena, arenaFloats, wasmKernels } from './kernels.ts';
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
  return out;
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
  });
  arenas.set(model, arena);
  const dispose = model.dispose.bind(model);
  model.dispose = () => {
    arena.close();
    dispose();
  };
  return model;
}
