/**
 * The wasm backend: the CPU backend's model (src/gpu/cpu/model.ts, forward reuse and live rows
 * included) with every array in one WebAssembly memory and the heavy kernels run by the SIMD
 * module (kernels.ts), so no call copies its operands. Ops without a wasm kernel run the
 * TypeScript ones on the same arrays.
 */
import type { Graph } from '../graph.ts';
import type { CompileOptions } from '../model.ts';
import { CpuModel, modelArrayLengths } from '../cpu/model.ts';
import { WasmArena, arenaFloats, wasmKernels } from './kernels.ts';

const arenas = new WeakMap<CpuModel, WasmArena>();

/** Kernel calls the module ran for a wasm model, by kernel name (tests, profiling); undefined for other models. */
export function wasmKernelCalls(model: CpuModel): ReadonlyMap<string, number> | undefined {
  return arenas.get(model)?.calls;
}

export async function createWasmModel(graph: Graph, opts: CompileOptions = {}): Promise<CpuModel> {
  const arena = await WasmArena.create(arenaFloats(modelArrayLengths(graph)));
  const model = new CpuModel(graph, opts, {
    backend: 'wasm',
    kernels: wasmKernels(arena),
    f32: (len) => arena.f32(len),
    u32: (len) => arena.u32(len),
  });
  arenas.set(model, arena);
  return model;
}
