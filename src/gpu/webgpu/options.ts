/** What a WebGPU model may be asked for at compile time, and the plan options that follow from it. */
import type { CompileOptions } from '../model.ts';
import type { GpuContext } from './device.ts';

export interface GpuModelOptions extends CompileOptions {
  /**
   * Copy parameters and Adam state back to the host every N optimizer steps, so a lost device
   * resumes from at most N steps ago (0 = only on checkpoint()). Each copy reads back 12 bytes per
   * parameter.
   */
  hostSyncEvery?: number;
  /** Fuse runs of element-wise kernels into single dispatches (plan-fuse.ts; same bits). Default true. */
  fuse?: boolean;
  /** Small products on matmul_lanes.wgsl (plan.ts buildPlan). Default: on a hardware adapter only. */
  lanes?: boolean;
  /**
   * With lanes products and fusion: two or three lanes products of a forward pass that share their
   * left operand in one dispatch (plan-siblings.ts; the same bits). Default true.
   */
  siblings?: boolean;
  /**
   * With lanes products and fusion: a backward pass's weight gradients of one input, and its input
   * gradients into one tensor's gradient, two or three to a dispatch (plan-grads.ts; the same bits).
   * Default true.
   */
  gradGroups?: boolean;
  /**
   * Long rows one workgroup per row (plan-forward.ts WIDE_ROW_COLS): layer norm and its gradient on
   * layer_norm_wide.wgsl / layer_norm_grad_wide.wgsl, and row reductions of more than
   * REDUCE_WIDE_ROWS rows on reduce_wide.wgsl, each row's sums in a tree (the last bits differ from
   * the CPU backend's, within the layer norm and reduction tolerances). Default: on a hardware
   * adapter only; one invocation per row keeps a software adapter's barriers few.
   */
  wideRows?: boolean;
  /**
   * The kernels with trees across invocations (matmul_lanes, reduce_wide, grad_norm) on their
   * subgroup twins (kernels.ts SUBGROUP_TWINS: the same bits, fewer barriers), where the device has
   * the `subgroups` feature and the context's check found no twin that disagrees
   * (`GpuContext.subgroupTwins`, subgroup-check.ts). Default off: on the one GPU measured (an NVIDIA
   * H200), the lanes products' twins took 1.3–1.4× their kernels' GPU time per dispatch and the
   * long sums' the same (docs/benchmarks.md, "Subgroup twins and the sampler probe on the H200").
   */
  subgroups?: boolean;
}

/** The plan's options (plan.ts buildPlan) for a model on this context. */
export function planOptions(
  opts: GpuModelOptions,
  ctx: GpuContext,
): {
  fuse: boolean;
  lanes: boolean;
  wideRows: boolean;
  subgroups: boolean;
  siblings: boolean;
  gradGroups: boolean;
} {
  return {
    fuse: opts.fuse ?? true,
    siblings: opts.siblings ?? true,
    gradGroups: opts.gradGroups ?? true,
    lanes: opts.lanes ?? !ctx.adapter.software,
    wideRows: opts.wideRows ?? !ctx.adapter.software,
    subgroups: opts.subgroups === true && ctx.subgroupTwins !== false && ctx.device.features.has('subgroups'),
  };
}
