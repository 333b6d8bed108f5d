/**
 * The `auto` backend probe for training (`SelectOptions.workload`, src/gpu/probe.ts): whole
 * training iterations of the run's own config, start checkpoint and pool, timed on WebGPU and on
 * the CPU side, each after one untimed warm-up iteration (pipelines, arenas, the engine's JIT); the
 * faster of two timed iterations counts. On WebGPU the iterations are timed twice, with rollouts
 * sampled on the device and on the CPU side, and the faster way is kept for the run
 * (`BackendChoice.samplerBackend`): on an NVIDIA H200 the rollouts of the default config took
 * 109 ms sampled on WebGPU and 48 ms on wasm (docs/benchmarks.md).
 *
 * The generic probe step predicts a small policy's training badly on a real GPU: there the time of
 * an iteration follows its dispatch and read-back count (thousands of small dispatches: the
 * construction steps' sampler passes and 12–14 minibatch updates), which the step does not share.
 * On an NVIDIA H200 it chose WebGPU (1.1–1.6 ms vs wasm 2.2–4.0 ms per step) while whole iterations
 * ran 1.9–3.6× faster on wasm (docs/benchmarks.md). Timing the iteration itself measures what the
 * run will do. The probe's trainers are thrown away; the run starts from the same checkpoint.
 *
 * The probe's iterations always run the runners given here, which the caller keeps free: the
 * simulator, never a paid provider (the CLI trains on a provider with the simulator probing).
 */
import { formatMs, type BackendChoice, type ProbeTime, type ProbeWorkload } from '../gpu/index.ts';
import { Trainer, type TrainerOptions } from './loop.ts';

export type IterationProbeOptions = Pick<TrainerOptions, 'start' | 'pool' | 'config' | 'runners' | 'resume'>;

const now = (): number => globalThis.performance?.now() ?? Date.now();

/**
 * Timed iterations per backend after the warm-up; the faster counts. One alone was at the mercy of
 * a collection or a late compile: on the H200 one wasm iteration of B=32 once took 506 ms where
 * its iterations otherwise took 337 ms, and the probe chose WebGPU.
 */
const TIMED = 2;

export function iterationWorkload(o: IterationProbeOptions): ProbeWorkload {
  // The run's config: the snapshot's when resuming.
  const c = o.resume ? o.resume.config : o.config;
  const timeIterations = async (choice: BackendChoice, samplerChoice?: BackendChoice): Promise<number> => {
    const t = await Trainer.create({ ...o, choice, ...(samplerChoice ? { samplerChoice } : {}) });
    try {
      await t.iterate();
      let best = Infinity;
      for (let i = 0; i < TIMED; i++) {
        const t0 = now();
        await t.iterate();
        best = Math.min(best, now() - t0);
      }
      return best;
    } finally {
      t.dispose();
    }
  };
  return {
    unit: `training iteration (${c.tasksPerIteration * c.groupSize} episodes)`,
    key: `train|${o.resume ? `${o.resume.start.name}@${o.resume.iteration}` : o.start.name}|${JSON.stringify(c)}`,
    async time(backend, ctx, cpuBackend): Promise<number | ProbeTime> {
      const choice: BackendChoice = { backend, reason: 'auto probe', adapter: null, ctx };
      if (backend !== 'webgpu') return timeIterations(choice);
      // On WebGPU, rollouts sampled on the device and on the CPU side (samplerChoice): each
      // construction step is a pass over a few dozen states, whose submission and read-back can
      // cost a GPU more than the arithmetic. The faster way is kept (BackendChoice.samplerBackend).
      const onDevice = await timeIterations(choice);
      const sampler: BackendChoice = { backend: cpuBackend, reason: 'auto probe', adapter: null, ctx: null };
      const onCpu = await timeIterations(choice, sampler);
      // The kept way first: "rollouts on wasm 141 ms, on WebGPU 212 ms".
      const cpuSide = `on ${cpuBackend} ${formatMs(onCpu)} ms`;
      const device = `on WebGPU ${formatMs(onDevice)} ms`;
      if (onCpu < onDevice)
        return { ms: onCpu, note: `rollouts ${cpuSide}, ${device}`, samplerBackend: cpuBackend };
      return { ms: onDevice, note: `rollouts ${device}, ${cpuSide}` };
    },
  };
}
