/**
 * `auto` with the trainer's own workload (backend-probe.ts) on a real adapter (SwiftShader in CI,
 * timed as if it were hardware through the tests-only `probeSoftwareAdapter`): both backends run
 * whole training iterations of the config, the faster is kept, the reason names the iteration, and
 * the probe leaves the run where it was.
 */
import { describe, expect, it } from 'vitest';
import { chooseBackend, type BackendChoice } from '../gpu/index.ts';
import { nodeGpu } from '../gpu/node-gpu.ts';
import { DEFAULT_POOL, randomCheckpoint, type PolicyCheckpoint } from '../policy/index.ts';
import { iterationWorkload } from './backend-probe.ts';
import { trainConfig } from './config.ts';
import { Trainer, type TrainerOptions } from './loop.ts';
import type { RunnersFor } from './rollout.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
const tiny = (): PolicyCheckpoint =>
  randomCheckpoint(DEFAULT_POOL, 3, { hidden: 8, hashDim: 16, maxAgents: 4, maxSteps: 5, graphHidden: 4 });
let calls = 0;
const runners: RunnersFor = () => {
  calls++;
  return {
    intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
    final: (trace) => Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 }),
  };
};
const config = trainConfig({ tasksPerIteration: 2, groupSize: 3, minibatch: 8, epochs: 1, maxSteps: 5 });

describe('the training-iteration probe', () => {
  it('times whole iterations on WebGPU and wasm and keeps the faster', async () => {
    calls = 0;
    const workload = iterationWorkload({ start: tiny(), pool: DEFAULT_POOL, config, runners });
    expect(workload.unit).toBe('training iteration (6 episodes)');
    const choice = await chooseBackend('auto', {
      gpu: await nodeGpu(),
      probeSoftwareAdapter: true,
      workload,
    });
    const p = choice.probe;
    if (!p) throw new Error(`no probe timings: ${choice.reason}`);
    expect(p.unit).toBe('training iteration (6 episodes)');
    expect(p.webgpuMs).toBeGreaterThan(0);
    expect(p.cpuMs).toBeGreaterThan(0);
    expect(choice.backend).toBe(p.webgpuMs < p.cpuMs ? 'webgpu' : 'wasm');
    // WebGPU was timed with rollouts sampled on the device and on wasm; the faster counts.
    const [, onWasm, onDevice] =
      /^rollouts (?:on wasm ([\d.]+) ms, on WebGPU ([\d.]+) ms|on WebGPU ([\d.]+) ms, on wasm ([\d.]+) ms)$/
        .exec(p.webgpuNote ?? '')
        ?.filter((x) => x !== undefined)
        .map(Number) ?? [NaN, NaN, NaN];
    const wasmFirst = p.webgpuNote?.startsWith('rollouts on wasm') === true;
    const [wasmMs, deviceMs] = wasmFirst ? [onWasm, onDevice] : [onDevice, onWasm];
    expect(wasmMs! > 0 && deviceMs! > 0, p.webgpuNote).toBe(true);
    expect(wasmFirst).toBe(wasmMs! < deviceMs!);
    expect(p.samplerBackend).toBe(wasmFirst ? 'wasm' : undefined);
    expect(choice.samplerBackend).toBe(choice.backend === 'webgpu' ? p.samplerBackend : undefined);
    expect(choice.reason).toMatch(
      /^hardware adapter .+: WebGPU [\d.]+ ms \(rollouts on .+\) vs wasm [\d.]+ ms per training iteration \(6 episodes\): /,
    );
    // Three iterations (a warm-up, two timed) of 6 episodes on WebGPU with each sampler and on
    // wasm, each with its runners.
    expect(calls).toBe(3 * 3 * 6);
    expect(choice.ctx?.errors ?? []).toEqual([]);
    choice.ctx?.dispose();
  });

  it('leaves the run where it was: a trainer after the probe matches one before it, bit for bit', async () => {
    const start = tiny();
    const run = async (): Promise<string> => {
      const t = await Trainer.create({ start, pool: DEFAULT_POOL, config, choice: cpu, runners });
      const m = await t.iterate();
      const after = JSON.stringify(await t.trained('x'));
      t.dispose();
      return JSON.stringify(m) + after;
    };
    const before = JSON.stringify(start);
    const want = await run();
    const ms = await iterationWorkload({ start, pool: DEFAULT_POOL, config, runners }).time(
      'cpu',
      null,
      'cpu',
    );
    expect(ms).toBeGreaterThan(0);
    expect(JSON.stringify(start)).toBe(before);
    expect(await run()).toBe(want);
  });

  it('a WebGPU choice that samples on wasm trains as a trainer given the wasm sampler', async () => {
    const webgpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
    const wasm: BackendChoice = { backend: 'wasm', reason: 'test', adapter: null, ctx: null };
    const start = tiny();
    const make = (o: Partial<TrainerOptions>): Promise<Trainer> =>
      Trainer.create({ start, pool: DEFAULT_POOL, config, choice: webgpu, runners, ...o });
    const probed = await make({ choice: { ...webgpu, samplerBackend: 'wasm' } });
    const given = await make({ samplerChoice: wasm });
    const plain = await make({});
    expect([probed.rolloutBackend, given.rolloutBackend, plain.rolloutBackend]).toEqual([
      'wasm',
      'wasm',
      'webgpu',
    ]);
    // An explicit sampler wins over the probe's.
    const forced = await make({ choice: { ...webgpu, samplerBackend: 'wasm' }, samplerChoice: webgpu });
    expect(forced.rolloutBackend).toBe('webgpu');
    for (let i = 0; i < 2; i++)
      expect(JSON.stringify(await probed.iterate())).toBe(JSON.stringify(await given.iterate()));
    expect(JSON.stringify(await probed.trained('x'))).toBe(JSON.stringify(await given.trained('x')));
    for (const t of [probed, given, plain, forced]) t.dispose();
    expect(webgpu.ctx?.errors ?? []).toEqual([]);
    webgpu.ctx?.dispose();
  });

  it('keys the timings by config: another config is timed anew', () => {
    const a = iterationWorkload({ start: tiny(), pool: DEFAULT_POOL, config, runners });
    const b = iterationWorkload({
      start: tiny(),
      pool: DEFAULT_POOL,
      config: trainConfig({ ...config, tasksPerIteration: 4 }),
      runners,
    });
    expect(a.key).not.toBe(b.key);
    expect(b.unit).toBe('training iteration (12 episodes)');
  });
});
