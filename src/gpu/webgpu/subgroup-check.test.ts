/**
 * The check that a hardware driver's subgroup twins give their kernels' bits (subgroup-check.ts),
 * run here on SwiftShader with `software` (the only adapter CI has): it passes on a driver whose
 * twins agree, turns the twins off with the failing case named where one disagrees (a twin made
 * to disagree through a changed constant), and models compiled on that context then run the plain
 * kernels. A software adapter is not checked unless asked.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compile, type BackendChoice, type Model } from '../index.ts';
import { nodeGpu } from '../node-gpu.ts';
import { net } from '../testing/two-heads.ts';
import { GpuContext } from './device.ts';
import type { GpuModelOptions } from './options.ts';
import { checkSubgroupTwins } from './subgroup-check.ts';

const opened: GpuContext[] = [];
async function context(): Promise<GpuContext> {
  const ctx = await GpuContext.create({ gpu: await nodeGpu() });
  if (!ctx) throw new Error('no WebGPU adapter');
  opened.push(ctx);
  return ctx;
}
afterEach(() => {
  for (const ctx of opened.splice(0)) {
    expect(ctx.errors).toEqual([]);
    ctx.dispose();
  }
});

const kernelsOf = (m: unknown): string => JSON.stringify((m as { plan: unknown }).plan);

/** The two-heads net compiled through the front door on `ctx`, with lanes products. */
function compiled(ctx: GpuContext, over: GpuModelOptions = {}): Promise<Model> {
  const choice: BackendChoice = { backend: 'webgpu', reason: 'test', adapter: ctx.adapter, ctx, lanes: true };
  const { g, opts } = net();
  return compile(choice, g, { ...opts, ...over });
}

describe('the subgroup check', () => {
  it('passes where every twin gives its kernel’s bits, once per context', async () => {
    const ctx = await context();
    expect(await checkSubgroupTwins(ctx, { software: true })).toBe(true);
    expect(ctx.subgroupTwins).toBe(true);
    expect(ctx.subgroupCheck).toBe('on: every twin gave its kernel’s bits');
    // Cached: a second call with a twin that would disagree does not run again.
    expect(await checkSubgroupTwins(ctx, { software: true, twinConstants: { LK: 8 } })).toBe(true);
  });

  it('turns the twins off where one disagrees, naming it, and models then run the plain kernels', async () => {
    const ctx = await context();
    // Eight lanes per block in the twin of a 4-lane product: another summation order.
    expect(await checkSubgroupTwins(ctx, { software: true, twinConstants: { LK: 8 } })).toBe(false);
    expect(ctx.subgroupTwins).toBe(false);
    expect(ctx.subgroupCheck).toBe(
      'off: the subgroup twin of the lanes product with 4 lanes gave other bits than its kernel',
    );
    // A model that asks for them runs the plain kernels, as one that does not.
    const asked = await compiled(ctx, { subgroups: true });
    expect(kernelsOf(asked)).toContain('"matmul_lanes"');
    expect(kernelsOf(asked)).not.toContain('_sg"');
    asked.dispose();
  });

  it('says why it failed when a twin cannot run, and turns them off', async () => {
    const ctx = await context();
    // A constant the twins do not declare: the pipeline cannot be made.
    expect(await checkSubgroupTwins(ctx, { software: true, twinConstants: { NO_SUCH: 1 } })).toBe(false);
    expect(ctx.subgroupCheck).toMatch(/^off: the check failed \(.*NO_SUCH.*\)$/s);
    // Caught by the check's error scope, not left as the context's uncaptured errors.
    expect(ctx.errors).toEqual([]);
  });

  it('leaves a software adapter unchecked unless asked; compile() then uses the twins a model asks for', async () => {
    const ctx = await context();
    const plain = await compiled(ctx);
    // Not asked for: no check, no twins.
    expect(ctx.subgroupCheck).toBe('');
    expect(kernelsOf(plain)).not.toContain('_sg"');
    const model = await compiled(ctx, { subgroups: true });
    expect(ctx.subgroupCheck).toBe('not checked: a software adapter (CI checks SwiftShader)');
    expect(ctx.subgroupTwins).toBeNull();
    expect(kernelsOf(model)).toContain('"matmul_lanes_sg"');
    for (const m of [plain, model]) m.dispose();
  });
});
