/**
 * WebGPU device acquisition, error reporting and loss recovery. This module (with ../node-gpu.ts) is
 * the only place that touches `navigator.gpu`; everything else receives a GpuContext.
 */

export interface AdapterReport {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** The adapter says it is a fallback (software) adapter. */
  isFallbackAdapter: boolean;
  /** Fallback, or a known software rasteriser (SwiftShader, llvmpipe/lavapipe, WARP). */
  software: boolean;
  features: string[];
  /** The limits that matter for the compute core (bytes or counts, as WebGPU defines them). */
  limits: Record<string, number>;
}

export interface AcquireOptions {
  /** The GPU object: navigator.gpu in a browser, create([]) from 'webgpu' in Node. */
  gpu?: GPU | undefined;
  powerPreference?: GPUPowerPreference;
  /** Called for every uncaptured validation / out-of-memory / internal error. */
  onError?: (message: string) => void;
  /** Called when the device is lost (also after destroy()); recovery is GpuContext.recover(). */
  onLost?: (reason: string, message: string) => void;
}

/** Features requested at device creation when the adapter offers them. */
export const OPTIONAL_FEATURES: GPUFeatureName[] = ['timestamp-query', 'subgroups', 'shader-f16'];

const SOFTWARE = /swiftshader|llvmpipe|lavapipe|software|warp|microsoft basic render/i;

const LIMIT_NAMES = [
  'maxBufferSize',
  'maxStorageBufferBindingSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupSizeX',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupStorageSize',
  'maxComputeWorkgroupsPerDimension',
  'minStorageBufferOffsetAlignment',
  'minUniformBufferOffsetAlignment',
] as const;

/** The browser's GPU object, or undefined where WebGPU is missing (Node, old browsers). */
export function browserGpu(): GPU | undefined {
  return typeof navigator !== 'undefined' && 'gpu' in navigator ? navigator.gpu : undefined;
}

export function reportAdapter(adapter: GPUAdapter): AdapterReport {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const legacy = adapter as GPUAdapter & { isFallbackAdapter?: boolean };
  const isFallbackAdapter = info.isFallbackAdapter ?? legacy.isFallbackAdapter ?? false;
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`;
  const limits: Record<string, number> = {};
  for (const name of LIMIT_NAMES) limits[name] = adapter.limits[name];
  return {
    vendor: info.vendor,
    architecture: info.architecture,
    device: info.device,
    description: info.description,
    isFallbackAdapter,
    software: isFallbackAdapter || SOFTWARE.test(text),
    features: [...adapter.features].map(String).sort(),
    limits,
  };
}

// Lives in ../adapter.ts so the front door can offer it without loading this module.
export { describeAdapter } from '../adapter.ts';

/**
 * What the compute core asked of the device since the context was made (or `resetCounters()`):
 * queue submissions, buffer read-backs (mapAsync), compute dispatches and the workgroups they
 * launched, queue.writeBuffer calls and bytes. Counted by the models on this context (model.ts)
 * and read by tests and `npm run bench:gpu-profile`: hardware-independent measures of round trips
 * and work.
 */
export interface GpuCounters {
  submissions: number;
  readbacks: number;
  dispatches: number;
  workgroups: number;
  writes: number;
  writeBytes: number;
}

export const zeroCounters = (): GpuCounters => ({
  submissions: 0,
  readbacks: 0,
  dispatches: 0,
  workgroups: 0,
  writes: 0,
  writeBytes: 0,
});

/**
 * Owns the current GPUDevice. When the device is lost, `lost` becomes true; recover() requests a
 * new adapter and device and bumps `generation`, so that models holding buffers from the old device
 * know to rebuild them (and restore parameters from their host copy).
 */
export class GpuContext {
  lost = false;
  generation = 0;
  readonly errors: string[] = [];
  /** Work asked of the device so far (see GpuCounters). */
  counters: GpuCounters = zeroCounters();
  /**
   * Whether the subgroup twins may run here (subgroup-check.ts): null until checked, which model
   * options default to; false where a twin gave other bits than its kernel.
   */
  subgroupTwins: boolean | null = null;
  /** What the subgroup check found, for the adapter report ('' until it ran). */
  subgroupCheck = '';
  private disposed = false;

  /** Returns the counters so far and starts counting from zero. */
  resetCounters(): GpuCounters {
    const c = this.counters;
    this.counters = zeroCounters();
    return c;
  }

  private constructor(
    private readonly gpu: GPU,
    private readonly opts: AcquireOptions,
    public device: GPUDevice,
    public adapter: AdapterReport,
  ) {
    this.watch(device);
  }

  /** Null when there is no WebGPU or no adapter. */
  static async create(opts: AcquireOptions = {}): Promise<GpuContext | null> {
    const gpu = opts.gpu ?? browserGpu();
    if (!gpu) return null;
    const got = await GpuContext.requestDevice(gpu, opts);
    return got ? new GpuContext(gpu, opts, got.device, got.report) : null;
  }

  private static async requestDevice(
    gpu: GPU,
    opts: AcquireOptions,
  ): Promise<{ device: GPUDevice; report: AdapterReport } | null> {
    const adapter = await gpu.requestAdapter(
      opts.powerPreference ? { powerPreference: opts.powerPreference } : {},
    );
    if (!adapter) return null;
    const report = reportAdapter(adapter);
    // Ask for the adapter's full buffer sizes: the defaults (128 MiB bindings) would cap batch × hidden.
    // The optional features the compute core can use, where offered: per-dispatch GPU timing for
    // profiles, and the subgroup and f16 matmul variants (kernels.ts); none is needed.
    const requiredFeatures = OPTIONAL_FEATURES.filter((f) => adapter.features.has(f));
    const device = await adapter.requestDevice({
      requiredFeatures,
      requiredLimits: {
        maxBufferSize: adapter.limits.maxBufferSize,
        maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      },
    });
    return { device, report };
  }

  private watch(device: GPUDevice): void {
    device.addEventListener('uncapturederror', (ev) => {
      const message = (ev as GPUUncapturedErrorEvent).error.message;
      this.errors.push(message);
      this.opts.onError?.(message);
    });
    void device.lost.then((info) => {
      if (device !== this.device) return;
      this.lost = true;
      this.opts.onLost?.(info.reason, info.message);
    });
  }

  /** Re-creates the device after a loss. Throws when no adapter is available any more. */
  async recover(): Promise<void> {
    if (this.disposed) throw new Error('GPU context was disposed');
    const got = await GpuContext.requestDevice(this.gpu, this.opts);
    if (!got) throw new Error('WebGPU adapter is gone; cannot recover the device');
    this.device = got.device;
    this.adapter = got.report;
    this.lost = false;
    this.generation += 1;
    this.watch(got.device);
  }

  dispose(): void {
    this.disposed = true;
    this.device.destroy();
  }
}
