/**
 * `npm run bench:prune`: forward passes that compute what they read (`RunOptions.prune`) against
 * full forward passes, in the same run, on each backend here: the TypeScript and WebAssembly SIMD
 * CPU backends and WebGPU (SwiftShader on a machine without a GPU, where the device's time is CPU
 * time: read its dispatch counts, which are the same on any adapter, more than its times).
 *
 * Three passes of the construction policy, over real rows (`sampleBatch`: constructions sampled
 * from `prior` and replayed), packed as the trainer packs them, alternating two minibatches so that
 * every pass sees new inputs (the CPU backends would otherwise reuse every node):
 * - log π: the trainer's training graph (minibatch 64: the policy, the PPO objective and the
 *   entropy sums, `Learner`) reading the joint log-probabilities, as `Learner.logProbs` does for
 *   the old and reference policies;
 * - node head: the sampler's graph (batch 64) reading π_node, as `BatchedPolicy.nodePass`;
 * - edge head: the sampler's graph reading the edge logits, as `BatchedPolicy.edgePass`.
 * Full and pruned passes alternate; medians of `--reps` (default 15) each. Writes nothing.
 *
 *   npm run bench:prune [-- --reps 15]
 */
import { allowWgslImports } from '../src/cli/wgsl-loader.ts';
import {
  chooseBackend,
  compile,
  readStep,
  type BackendChoice,
  type Model,
  type Tensor,
} from '../src/gpu/index.ts';
import { nodeGpu, releaseNodeGpu } from '../src/gpu/node-gpu.ts';
import type { GpuContext } from '../src/gpu/webgpu/device.ts';
import {
  DEFAULT_POOL,
  PackedStates,
  agentDim,
  buildPolicyGraph,
  encoderConfig,
  graphBlock,
  policyCompileOptions,
  priorCheckpoint,
} from '../src/policy/index.ts';
import { Learner, trainConfig } from '../src/train/index.ts';
import { sampleBatch } from './train-tfjs/episodes.ts';

const argv = process.argv.slice(2);
const at = argv.indexOf('--reps');
const REPS = at >= 0 ? Number(argv[at + 1]) : 15;
const M = 64;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

allowWgslImports();
const pool = DEFAULT_POOL;
const cp = priorCheckpoint(pool);
const cfg = cp.config;
const data = await sampleBatch(cp, pool, trainConfig({ minibatch: M }), 2 * M, 17);
const full = data.full;
const webgpu = await chooseBackend('webgpu', { gpu: await nodeGpu() });
console.log(
  `adapter: ${webgpu.reason}; ${full.batch} rows, passes over rows 0–${M - 1} and ${M}–${2 * M - 1}`,
);
const choices: BackendChoice[] = [
  { backend: 'cpu', reason: 'forced', adapter: null, ctx: null },
  { backend: 'wasm', reason: 'forced', adapter: null, ctx: null },
  webgpu,
];

interface Case {
  name: string;
  /** The model and the tensor a pass reads. */
  make: (choice: BackendChoice) => Promise<{ model: Model; read: Tensor; dispose: () => void }>;
  targets: boolean;
}
/** The sampler's graph (no log π of recorded actions), its inputs of constants set. */
async function samplerGraph(choice: BackendChoice, read: 'probs' | 'edgeLogits') {
  const pg = buildPolicyGraph(cfg, cp.params, { batch: M, edgeRows: M * cfg.maxAgents, logProb: false });
  const model = await compile(choice, pg.graph, policyCompileOptions(cfg));
  model.setInput('ones', new Float32Array(agentDim(encoderConfig(cfg))).fill(1));
  const block = graphBlock(cfg);
  if (block) model.setInput('onesG', new Float32Array(block.hidden).fill(1));
  return { model, read: pg[read], dispose: () => model.dispose() };
}
const cases: Case[] = [
  {
    name: 'log π (training graph)',
    targets: true,
    make: async (choice) => {
      const learner = await Learner.create(cp, cp, pool, trainConfig({ minibatch: M }), choice);
      // Log π passes of one minibatch each (the trainer runs them over up to Learner.passRows rows).
      learner.passRows = 0;
      return { model: learner.model, read: learner.graph.joint as Tensor, dispose: () => learner.dispose() };
    },
  },
  { name: 'node head (sampler graph)', targets: false, make: (choice) => samplerGraph(choice, 'probs') },
  { name: 'edge head (sampler graph)', targets: false, make: (choice) => samplerGraph(choice, 'edgeLogits') },
];

const rows: Record<string, string | number>[] = [];
for (const choice of choices) {
  const ctx = choice.ctx as GpuContext | null;
  for (const c of cases) {
    const { model, read, dispose } = await c.make(choice);
    const mb = new PackedStates(encoderConfig(cfg), M, M * cfg.maxAgents, graphBlock(cfg) !== null);
    let half = 0;
    const pass = async (prune: boolean): Promise<number> => {
      mb.clear();
      mb.copyRange(full.rows, half * M, M);
      half ^= 1;
      const t0 = performance.now();
      mb.feed(model, { targets: c.targets });
      await readStep(model, [read], { backward: false, update: false, prune });
      return performance.now() - t0;
    };
    const t = { full: [] as number[], pruned: [] as number[] };
    const dispatches = { full: 0, pruned: 0 };
    for (let r = -2; r < REPS; r++)
      for (const prune of [false, true]) {
        ctx?.resetCounters();
        const ms = await pass(prune);
        const d = ctx?.resetCounters().dispatches ?? 0;
        if (r < 0) continue;
        t[prune ? 'pruned' : 'full'].push(ms);
        dispatches[prune ? 'pruned' : 'full'] = d;
      }
    const [f, p] = [median(t.full), median(t.pruned)];
    rows.push({
      backend: choice.backend,
      pass: c.name,
      'full ms': +f.toFixed(2),
      'pruned ms': +p.toFixed(2),
      'full / pruned': +(f / p).toFixed(2),
      ...(ctx ? { dispatches: `${dispatches.full} → ${dispatches.pruned}` } : {}),
    });
    dispose();
  }
}
console.table(rows);
webgpu.ctx?.dispose();
releaseNodeGpu();
process.exit(0);
