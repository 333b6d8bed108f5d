import { KERNELS } from './kernels.ts';
import type { KernelName } from './kernels.ts';

/**
 * Compiled compute pipelines, keyed by kernel and its override constants (transpose flags,
 * activation, op codes). Shapes reach the kernels through uniforms, so one pipeline serves every
 * shape and a new shape costs no shader compilation. Bound to one device.
 */
export class PipelineCache {
  private readonly modules = new Map<KernelName, GPUShaderModule>();
  private readonly pipelines = new Map<string, GPUComputePipeline>();

  constructor(private readonly device: GPUDevice) {}

  static key(kernel: KernelName, constants: Record<string, number>): string {
    const parts = Object.keys(constants)
      .sort()
      .map((k) => `${k}=${constants[k]}`);
    return `${kernel}|${parts.join(',')}`;
  }

  get(kernel: KernelName, constants: Record<string, number> = {}): GPUComputePipeline {
    const key = PipelineCache.key(kernel, constants);
    const hit = this.pipelines.get(key);
    if (hit) return hit;
    let module = this.modules.get(kernel);
    if (!module) {
      module = this.device.createShaderModule({ label: kernel, code: KERNELS[kernel] });
      this.modules.set(kernel, module);
    }
    const pipeline = this.device.createComputePipeline({
      label: key,
      layout: 'auto',
      compute: { module, entryPoint: 'main', constants },
    });
    this.pipelines.set(key, pipeline);
    return pipeline;
  }

  get size(): number {
    return this.pipelines.size;
  }
}
