/**
 * The compute core's front door: the one module other layers import (`node-gpu.ts` aside, for Node).
 * See docs/compute-core.md. The WebGPU backend (device, kernels, pipelines) is not imported here: it
 * loads on first use, inside the async `chooseBackend` and `compile`, and so do the WebAssembly SIMD
 * kernels (src/gpu/wasm), so importing this module costs the graph builder and the CPU backend only.
 */
import { CpuModel } from './cpu/model.ts';
import type { Graph } from './graph.ts';
import type { Model, RunOptions, StepResult } from './model.ts';
import type { Tensor } from './graph.ts';
import type { BackendChoice, BackendPreference, SelectOptions } from './select.ts';
import type { GpuModelOptions } from './webgpu/model.ts';
import type { GpuContext } from './webgpu/device.ts';

export { Graph, MASKED_LOG_PROB } from './graph.ts';
export { initialParams, paramLayout, type ParamLayout } from './layout.ts';
export type { Activation, BinaryOp, DType, ReduceOp, Shape, Tensor, UnaryOp } from './graph.ts';
export type { BackendKind, CompileOptions, Model, RunOptions, StepResult } from './model.ts';
export type { AdamConfig, TrainState } from './optimizer.ts';
export type { BackendChoice, BackendPreference, SelectOptions } from './select.ts';
export type { ProbeTime, ProbeTimings, ProbeWorkload } from './probe.ts';
import type { ThreadSpawner } from './wasm/threads.ts';
export type { ThreadInit, ThreadSpawner } from './wasm/threads.ts';
export type { DecodeKernels } from './wasm/decode.ts';
import type { DecodeKernels } from './wasm/decode.ts';
export { describeAdapter } from './adapter.ts';
export { formatMs } from './probe.ts';
export type { AdapterReport, AcquireOptions, GpuContext } from './webgpu/device.ts';
export { CpuModel } from './cpu/model.ts';
export type { GpuModel, GpuModelOptions } from './webgpu/model.ts';
export * as init from './init.ts';

/**
 * Picks the backend (`auto`: on a hardware adapter, WebGPU when a timed probe step runs faster there
 * than on the CPU side; else WebAssembly SIMD where the engine has it, else the TypeScript CPU
 * backend, with the reason; see select.ts). The adapter code loads here, on first use; the store's policy service also loads
 * select.ts lazily, so it stays out of the page's first chunk.
 */
export async function chooseBackend(
  prefer: BackendPreference = 'auto',
  opts: SelectOptions = {},
): Promise<BackendChoice> {
  const select = await import('./select.ts');
  return select.chooseBackend(prefer, opts);
}

let wasmThreads: ThreadSpawner | null = null;

/**
 * Lets the wasm backend's models run large matmuls on a second thread started by `spawn` (the
 * workers layer supplies it where threads are allowed: a cross-origin-isolated page, Node); null
 * goes back to one thread. Models compiled before the call keep what they had.
 */
export function useWasmThreads(spawn: ThreadSpawner | null): void {
  wasmThreads = spawn;
}

/** The wasm kernels for a decoder with its own arena of `floats` floats (loaded on first use). */
export async function decodeKernels(floats: number): Promise<DecodeKernels> {
  const { createDecodeKernels } = await import('./wasm/decode.ts');
  return createDecodeKernels(floats);
}

/**
 * What the check of the subgroup twins found on this context's device (webgpu/subgroup-check.ts:
 * run once per context, on a hardware adapter with the `subgroups` feature), e.g. "on: every twin
 * gave its kernel’s bits". compile() runs it before the first model that asks for the twins.
 */
export async function checkSubgroups(ctx: GpuContext): Promise<string> {
  if (ctx.device?.features.has('subgroups') !== true) return 'no subgroups feature';
  const { checkSubgroupTwins } = await import('./webgpu/subgroup-check.ts');
  await checkSubgroupTwins(ctx);
  return ctx.subgroupCheck;
}

/**
 * Compiles a graph on the chosen backend; the WebGPU backend and the wasm kernels are loaded here,
 * the first time they are chosen.
 */
export async function compile(
  choice: BackendChoice,
  graph: Graph,
  opts: GpuModelOptions = {},
): Promise<Model> {
  if (choice.backend === 'webgpu') {
    if (!choice.ctx) throw new Error('WebGPU backend without a device');
    const { GpuModel } = await import('./webgpu/model.ts');
    // A model that asks for the subgroup twins gets them only where they gave their kernels' bits:
    // on a hardware adapter they are checked once per context before the first such model.
    if ((opts.subgroups ?? choice.subgroups) === true) await checkSubgroups(choice.ctx);
    const forced = {
      ...(choice.lanes === undefined ? {} : { lanes: choice.lanes }),
      ...(choice.wideRows === undefined ? {} : { wideRows: choice.wideRows }),
      ...(choice.subgroups === undefined ? {} : { subgroups: choice.subgroups }),
      ...(choice.siblings === undefined ? {} : { siblings: choice.siblings }),
      ...(choice.gradGroups === undefined ? {} : { gradGroups: choice.gradGroups }),
    };
    return new GpuModel(choice.ctx, graph, { ...forced, ...opts });
  }
  if (choice.backend === 'wasm') {
    const { createWasmModel } = await import('./wasm/model.ts');
    return createWasmModel(graph, opts, wasmThreads ?? undefined);
  }
  return new CpuModel(graph, opts);
}

/**
 * One step that also gives the `read` tensors' values: from the step's own read-back where the
 * backend returns them (every backend here does; on WebGPU that is one submission and one
 * read-back), else with read().
 */
export async function readStep(
  model: Model,
  read: readonly Tensor[],
  opts: RunOptions = {},
): Promise<{ values: Float32Array[]; result: StepResult }> {
  const result = await model.step({ ...opts, read });
  const values = result.values ?? (await Promise.all(read.map((t) => model.read(t))));
  return { values, result };
}
