/**
 * The compute core's public types. Types only, on purpose: with a function here the app's bundle
 * split its first load into more chunks, 9.7 kB (gzip) over the first page's budget
 * (scripts/check-size.mjs); runtime helpers such as `readStep` live in index.ts.
 */
import type { Graph, Tensor } from './graph.ts';
import type { AdamConfig, TrainState } from './optimizer.ts';

/** 'cpu': TypeScript kernels; 'wasm': the same backend with WebAssembly SIMD kernels (src/gpu/wasm); 'webgpu': WGSL. */
export type BackendKind = 'cpu' | 'wasm' | 'webgpu';

export interface CompileOptions {
  /** Scalar (one-element) tensor to minimise. Without it the model only runs forward. */
  loss?: Tensor;
  /** Optimizer for step(); without it step() computes gradients but leaves the parameters alone. */
  optimizer?: AdamConfig;
  /**
   * Inputs whose rows often share their first `cols` columns (the policy's state rows of one task
   * share the hashed query): the CPU backend sums a matmul by such an input over those columns
   * once per distinct prefix, with the very numbers of the row-by-row sum (src/gpu/cpu/ops.ts,
   * `matmulSharedPrefix`). A hint only: rows that do not share are computed as usual.
   */
  sharedPrefix?: Record<string, number>;
}

export interface StepResult {
  /** Value of the loss tensor (NaN without a loss). */
  loss: number;
  /** Global L2 norm of the parameter gradients before clipping (NaN without backward). */
  gradNorm: number;
  /** The values of `RunOptions.read`, in its order (absent when none were asked for). */
  values?: Float32Array[];
  /** The training state after this step, when `RunOptions.state` asked for it. */
  state?: TrainState;
}

export interface RunOptions {
  /** Compute gradients of the loss (default true when a loss is set). */
  backward?: boolean;
  /** Apply the optimizer update (default true when an optimizer is set). */
  update?: boolean;
  /** Learning rate of this update (a schedule's value); default: the optimizer's `lr`. */
  lr?: number;
  /**
   * Tensors to read back with the step's result, as they are after the forward pass (small ones:
   * per-row log-probabilities, scalars). On WebGPU they share the step's one read-back; a backend
   * that leaves `StepResult.values` unset is read with read() instead.
   */
  read?: readonly Tensor[];
  /**
   * With `read` and no backward pass: run only the nodes the `read` tensors are computed from (an
   * inference pass that reads the node head's probabilities skips the edge head; a log-probability
   * pass of a training graph skips its loss). The other nodes keep whatever they held, and a later
   * step that needs them computes them; the result's `loss` is NaN. Ignored when the step runs
   * backward, which needs the whole forward pass.
   */
  prune?: boolean;
  /**
   * Also give the training state as this step leaves it (`StepResult.state`: parameters, Adam
   * moments, step count; what exportState() would give right after). On WebGPU it shares the
   * step's one read-back, so the last update of a round needs no read of its own, and it becomes
   * the host copy that a lost device resumes from, as exportState() does.
   */
  state?: boolean;
}

/**
 * A compiled graph. The same interface on both backends: set inputs, run a step, read back scalars.
 * read() and readGrad() copy whole tensors back and are meant for tests, inspection and inference.
 */
export interface Model {
  readonly backend: BackendKind;
  readonly graph: Graph;
  /**
   * Writes an input by name; f32 inputs take Float32Array, u32 inputs Uint32Array. With `rows`,
   * only the first `rows` entries of its first dimension are live: the rest are padding that no
   * live result depends on (zero weights, indices that no live row reads). Both backends then
   * skip the padding rows of every tensor computed row by row from it (src/gpu/cpu/model.ts; on
   * WebGPU each call's sizes and workgroup counts follow the live rows, src/gpu/webgpu/live.ts);
   * padding rows of results are left as they were, and WebGPU uploads only the live rows of an
   * input that changed.
   */
  setInput(name: string, data: Float32Array | Uint32Array, rows?: number): void;
  /**
   * forward + loss + backward + optimizer update; on WebGPU one queue submission. A step runs with
   * the inputs set before the call: inputs set afterwards, even before its promise settles, are
   * the next step's (the CPU backends compute when called; WebGPU submits before returning), and
   * steps run in the order they are called.
   */
  step(opts?: RunOptions): Promise<StepResult>;
  read(t: Tensor): Promise<Float32Array>;
  readGrad(t: Tensor): Promise<Float32Array>;
  /** Parameters, Adam moments and step count (on WebGPU: read back from the device). */
  exportState(): Promise<TrainState>;
  importState(s: TrainState): void;
  /**
   * Replaces the parameters only (the flat arena, as `exportState().params`), leaving Adam's
   * moments and step count as they are: what a graph that is only run forward (a sampler, a log π
   * pass) needs when another model's parameters move (on WebGPU one upload, not three).
   */
  importParams(params: Float32Array): void;
  dispose(): void;
}
