/** Public API of the compute core. See docs/compute-core.md. */
import { CpuModel } from './cpu/model.ts';
import type { Graph } from './graph.ts';
import type { Model } from './model.ts';
import type { BackendChoice } from './select.ts';
import { GpuModel } from './webgpu/model.ts';
import type { GpuModelOptions } from './webgpu/model.ts';

export { Graph, MASKED_LOG_PROB } from './graph.ts';
export type { Activation, BinaryOp, DType, ReduceOp, Shape, Tensor, UnaryOp } from './graph.ts';
export type { BackendKind, CompileOptions, Model, RunOptions, StepResult } from './model.ts';
export type { AdamConfig, TrainState } from './optimizer.ts';
export { chooseBackend } from './select.ts';
export type { BackendChoice, BackendPreference } from './select.ts';
export { GpuContext, describeAdapter } from './webgpu/device.ts';
export type { AdapterReport, AcquireOptions } from './webgpu/device.ts';
export { CpuModel } from './cpu/model.ts';
export { GpuModel } from './webgpu/model.ts';
export type { GpuModelOptions } from './webgpu/model.ts';
export * as init from './init.ts';

/** Compiles a graph on the chosen backend. */
export function compile(choice: BackendChoice, graph: Graph, opts: GpuModelOptions = {}): Model {
  if (choice.backend === 'webgpu') {
    if (!choice.ctx) throw new Error('WebGPU backend without a device');
    return new GpuModel(choice.ctx, graph, opts);
  }
  return new CpuModel(graph, opts);
}
