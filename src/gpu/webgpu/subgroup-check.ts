/**
 * A device's subgroup twins checked against their kernels before a model relies on them. The twins
 * (kernels.ts SUBGROUP_TWINS) give their kernels' bits wherever the driver places invocations as
 * tree_sg.wgsl assumes: one subgroup size per dispatch, whole subgroups. CI proves that on
 * SwiftShader only, so a hardware driver is not taken on trust: before the first model that asks
 * for the twins on a hardware adapter with subgroups (index.ts `compile`), each twin runs once
 * beside its kernel on small cases (a lanes product per lane count, a long sum, a long max, the
 * gradient norm's two levels) and the bits are compared. A mismatch turns the twins off for that
 * context (`GpuContext.subgroupTwins`: models that ask for them then run the plain kernels) and
 * says why in `GpuContext.subgroupCheck`. Once per context: a recovered device keeps the verdict, since the
 * adapter is the same.
 */
import { createRng } from '../../core/rng.ts';
import { uniform } from '../init.ts';
import type { GpuContext } from './device.ts';
import { SUBGROUP_TWINS, type KernelName } from './kernels.ts';
import type { PipelineCache } from './pipelines.ts';
import { gradNormCalls } from './plan.ts';
import { lanesCall, val, type Call, type Ref } from './plan-calls.ts';
import { reduceCall } from './plan-forward.ts';
import { runOnBuffers } from './run-calls.ts';
import { deviceCaches } from './state.ts';

/** One case: calls over buffers A (val 0) and C (val 2; read back), scratch as temps. */
interface Case {
  name: string;
  calls: Call[];
  A: Float32Array;
  C: Float32Array;
}

function cases(): Case[] {
  const rng = createRng(11);
  const out: Case[] = [];
  for (const lk of [4, 8, 16, 32, 64]) {
    const [m, n, k] = [9, 7, lk * 4];
    // One buffer read as both operands (val 0 and val 1): op(A) [m, k] and B [k, n].
    out.push({
      name: `lanes product with ${lk} lanes`,
      calls: [lanesCall([val(0), val(1), val(2)], m, n, k, 1, false, false, false)],
      A: uniform(rng, Math.max(m * k, k * n), 1),
      C: new Float32Array(m * n),
    });
  }
  out.push({
    name: 'sum of 3,000 floats',
    calls: [reduceCall(val(0), val(2), 1, 3000, 0)],
    A: uniform(rng, 3000, 1),
    C: new Float32Array(1),
  });
  out.push({
    name: 'max of 3,000 floats',
    calls: [reduceCall(val(0), val(2), 1, 3000, 2)],
    A: uniform(rng, 3000, 1),
    C: new Float32Array(1),
  });
  const norm = gradNormCalls(70_000, 1).map((c) => ({
    ...c,
    refs: c.refs.map((r): Ref => (r.t === 'arena' ? val(0) : r.t === 'norm' ? val(2) : r)),
  }));
  out.push({
    name: 'gradient norm of 70,000 floats',
    calls: norm,
    A: uniform(rng, 70_000, 1),
    C: new Float32Array(2),
  });
  return out;
}

/** Runs `calls` on fresh buffers (A bound as val 0 and val 1, C as val 2, temps zeroed) and reads C's bits. */
async function run(
  device: GPUDevice,
  cache: PipelineCache,
  calls: Call[],
  A: Float32Array,
  C: Float32Array,
): Promise<Uint32Array> {
  return new Uint32Array(await runOnBuffers(device, cache, calls, [A, A, C], 2));
}

export interface SubgroupCheckOptions {
  /** Check a software adapter too (tests: SwiftShader is the only adapter CI has). */
  software?: boolean;
  /** Tests only: constants added to every twin's call, to make one disagree. */
  twinConstants?: Record<string, number>;
}

const checked = new WeakMap<GpuContext, Promise<boolean>>();

/**
 * Whether the subgroup twins may run on this context's device: false where the device has no
 * `subgroups`, or a twin gave other bits than its kernel. Software adapters are not checked
 * (CI holds the twins to their kernels on SwiftShader) unless `software`.
 */
export function checkSubgroupTwins(ctx: GpuContext, o: SubgroupCheckOptions = {}): Promise<boolean> {
  let got = checked.get(ctx);
  if (!got) {
    got = verdict(ctx, o);
    checked.set(ctx, got);
  }
  return got;
}

async function verdict(ctx: GpuContext, o: SubgroupCheckOptions): Promise<boolean> {
  if (!ctx.device.features.has('subgroups')) {
    ctx.subgroupTwins = false;
    ctx.subgroupCheck = 'no subgroups feature';
    return false;
  }
  if (ctx.adapter.software && !o.software) {
    ctx.subgroupCheck = 'not checked: a software adapter (CI checks SwiftShader)';
    return ctx.subgroupTwins ?? true;
  }
  // The device's own pipeline cache: the models compiled next reuse what the check compiled.
  const cache = deviceCaches(ctx.device).pipelines;
  const twins: Partial<Record<KernelName, KernelName>> = SUBGROUP_TWINS;
  const twinned = (calls: Call[]): Call[] =>
    calls.map((c) => {
      const twin = twins[c.kernel];
      return twin ? { ...c, kernel: twin, constants: { ...c.constants, ...o.twinConstants } } : c;
    });
  // Validation and internal errors (a twin that does not compile on this driver) are caught here
  // rather than reported as the context's uncaptured errors.
  const device = ctx.device;
  device.pushErrorScope('internal');
  device.pushErrorScope('validation');
  let failed: string | null = null;
  try {
    for (const c of cases()) {
      const plain = await run(device, cache, c.calls, c.A, c.C);
      const twin = await run(device, cache, twinned(c.calls), c.A, c.C);
      if (plain.some((b, i) => b !== twin[i])) {
        failed = `the subgroup twin of the ${c.name} gave other bits than its kernel`;
        break;
      }
    }
  } catch (e) {
    failed = `the check failed (${e instanceof Error ? e.message : String(e)})`;
  }
  const errors = [await device.popErrorScope(), await device.popErrorScope()].filter((e) => e !== null);
  if (errors.length > 0) failed = `the check failed (${errors.map((e) => e.message).join('; ')})`;
  if (failed !== null) {
    ctx.subgroupTwins = false;
    ctx.subgroupCheck = `off: ${failed}`;
    return false;
  }
  ctx.subgroupTwins = true;
  ctx.subgroupCheck = 'on: every twin gave its kernel’s bits';
  return true;
}
