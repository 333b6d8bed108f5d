/**
 * GRPO of the orchestrator LM (MAS-Orchestra's training loop at small scale; docs/train.md). Per
 * iteration: B train-split MASBench queries × G designs sampled at temperature τ under constrained
 * decoding (orchestrator-sampler.ts), each design run on the injected runner (the simulator's fast
 * path) for R = correct − λ·cost, the group advantage of each design (advantages.ts, the
 * construction policy's GRPO: mean-centred, or standardised), then K epochs of PPO-clip minibatch
 * updates on per-token log-ratios with that sequence-level advantage, k3 KL to the frozen SFT model
 * and an entropy bonus (orchestrator-learner.ts). The sampler then decodes with the updated
 * weights, read back from the learner: sampling and update share one set of weights.
 *
 * Pure and seeded (no timers, no Math.random; a clock is injected for throughput only), one
 * `iterate()` at a time, so a worker can drive it; `checkpoint()` exports the whole state and
 * `OrchestratorTrainer.create({ resume })` continues from it, bit for bit on the CPU backend.
 */
import { createRng, mix32 } from '../core/rng.ts';
import type { Design } from '../core/trace.ts';
import type { BackendChoice } from '../gpu/index.ts';
import type { TinyGptWeights } from '../lm/index.ts';
import { advantages } from './advantages.ts';
import { trainConfig } from './config.ts';
import type { Clock } from './loop.ts';
import { designDepth } from './metrics.ts';
import {
  checkpointFromState,
  stateOfCheckpoint,
  type OrchestratorCheckpoint,
  type OrchestratorIterationMetrics,
} from './orchestrator-checkpoint.ts';
import type { OrchestratorTrainConfig } from './orchestrator-config.ts';
import { CpuExactDecoder, type Decoder } from './orchestrator-decode.ts';
import { WasmDecoder } from './orchestrator-decode-wasm.ts';
import {
  drawSplitTasks,
  evaluateOrchestrator,
  type DesignRunner,
  type HeldOutDesign,
} from './orchestrator-eval.ts';
import { OrchestratorLearner, type OrchestratorUpdateStats } from './orchestrator-learner.ts';
import type { OrchestratorModel } from './orchestrator-model.ts';
import { sampleDesigns, type Query, type Sample, type SamplingFormat } from './orchestrator-sampler.ts';

export interface OrchestratorTrainerOptions {
  /** The SFT model: where training starts and the frozen KL reference. */
  model: OrchestratorModel;
  /** The model's prompt format (src/orchestrator `tinyDesignSampling`). */
  format: SamplingFormat;
  config: OrchestratorTrainConfig;
  choice: BackendChoice;
  /** Runs a design on a task under a simulator seed (the simulator's fast path in `baton train`). */
  run: DesignRunner;
  /** Continue from this checkpoint (its config wins over `config`). */
  resume?: OrchestratorCheckpoint;
  /** For throughput metrics only. */
  clock?: Clock;
}

/** The designs of an iteration, as the Train page shows them (mini DAGs). */
export interface SampledOrchestration {
  taskId: string;
  dom: 'low' | 'high';
  /** The design text as the model wrote it, and the design it reads as (null: did not read). */
  text: string;
  design: Design | null;
  reward: number;
  correct: boolean;
}

/** Sequences a wasm decoder holds at most: a batch of B·G samples (or a held-out batch) within it. */
const WASM_DECODER_SEQUENCES = 64;
/** Held-out queries decoded at once (orchestrator-eval.ts's default batch). */
const EVAL_BATCH = 16;

/**
 * The sampler's decoder: on the wasm backend the wasm kernels (the learner's log-probs then equal
 * the sampler's within rounding, as between any two backends); otherwise, or when a batch of B·G
 * sequences would not fit its arena, the decoder with the CPU backend's arithmetic bit for bit.
 */
async function decoderFor(
  choice: BackendChoice,
  config: OrchestratorTrainConfig,
  weights: TinyGptWeights,
): Promise<Decoder> {
  const batch = Math.max(config.tasksPerIteration * config.groupSize, EVAL_BATCH);
  if (choice.backend === 'wasm' && batch <= WASM_DECODER_SEQUENCES) return WasmDecoder.create(weights, batch);
  return new CpuExactDecoder(weights);
}

export class OrchestratorTrainer {
  private constructor(
    private readonly o: OrchestratorTrainerOptions,
    readonly config: OrchestratorTrainConfig,
    private readonly learner: OrchestratorLearner,
    private decoder: Decoder,
    private done: number,
    private readonly past: OrchestratorIterationMetrics[],
  ) {}

  /** The latest iteration's samples with their outcomes. */
  private lastRollouts: { sample: Sample; reward: number; correct: boolean }[] = [];

  static async create(o: OrchestratorTrainerOptions): Promise<OrchestratorTrainer> {
    const r = o.resume;
    const config = r ? r.config : o.config;
    const sft = o.model.weights;
    const learner = await OrchestratorLearner.create(sft, sft, config, o.choice);
    if (r) {
      const state = stateOfCheckpoint(r, learner.model.graph.params());
      learner.importState(state);
    }
    const decoder = await decoderFor(o.choice, config, r ? await learner.weights() : sft);
    return new OrchestratorTrainer(o, config, learner, decoder, r ? r.iteration : 0, r ? [...r.history] : []);
  }

  get iteration(): number {
    return this.done;
  }

  get history(): readonly OrchestratorIterationMetrics[] {
    return this.past;
  }

  /** The weights the sampler decodes with (the learner's after the last update). */
  get weights(): TinyGptWeights {
    return this.decoder.weights;
  }

  /** The learner's weights: what the next update starts from (tests hold them equal to `weights`). */
  learnerWeights(): Promise<TinyGptWeights> {
    return this.learner.weights();
  }

  /** The queries of iteration `it`: B train-split tasks; with `both`, low and high DoM alternate. */
  queriesOf(it: number): Query[] {
    const c = this.config;
    const tasks = drawSplitTasks({
      count: c.tasksPerIteration,
      baseSeed: mix32((c.seed ^ Math.imul(it + 1, 0x9e3779b1)) >>> 0),
      split: 'train',
      values: c.values,
    });
    return tasks.map((task, i) => ({
      task,
      dom: c.dom === 'both' ? ((i + it) % 2 === 0 ? 'low' : 'high') : c.dom,
    }));
  }

  /** One iteration: rollouts, rewards, advantages, K epochs of PPO minibatch updates. */
  async iterate(): Promise<OrchestratorIterationMetrics> {
    const c = this.config;
    const it = this.done;
    const clock = this.o.clock;
    const rng = createRng(mix32((c.seed ^ Math.imul(it + 1, 0x85ebca6b)) >>> 0));
    const t0 = clock?.() ?? 0;
    const samples = await sampleDesigns({
      decoder: this.decoder,
      format: this.o.format,
      queries: this.queriesOf(it),
      group: c.groupSize,
      temperature: c.temperature,
      greedy: false,
      rng,
      maxNewTokens: c.maxNewTokens,
    });
    const t1 = clock?.() ?? 0;
    // Every design of a group meets the same simulated sub-agents (one seed per query and iteration).
    const outcomes = await Promise.all(
      samples.map((s) =>
        s.design
          ? this.o.run(
              s.design,
              s.query.task,
              mix32((s.query.task.seed ^ Math.imul(it + 1, 0x2545f491)) >>> 0),
            )
          : Promise.resolve({ correct: false, tokens: c.costScale }),
      ),
    );
    const t2 = clock?.() ?? 0;
    const groups: { correct: boolean | null; tokens: number; intermediate: null[] }[][] = [];
    samples.forEach((s, i) => {
      (groups[s.group] ??= []).push({
        ...(outcomes[i] as { correct: boolean | null; tokens: number }),
        intermediate: [null],
      });
    });
    const adv = advantages(
      trainConfig({
        algo: 'grpo',
        groupSize: c.groupSize,
        advantageNorm: c.advantageNorm,
        lambda: c.lambda,
        costScale: c.costScale,
      }),
      groups,
      null,
    );
    const perSample = samples.map((s, i) => adv.steps[s.group]?.[i - s.group * c.groupSize]?.[0] ?? 0);
    const rewards = samples.map((s, i) => adv.rewards[s.group]?.[i - s.group * c.groupSize] ?? 0);
    const ref = c.klCoef > 0 ? await this.learner.logProbs(samples, 'reference') : null;
    const stats: OrchestratorUpdateStats[] = [];
    let windowTokens = 0;
    for (let e = 0; e < c.epochs; e++) {
      const order = rng.shuffle(samples.map((_, i) => i));
      const ordered = order.map((i) => samples[i] as Sample);
      for (let start = 0; start < order.length;) {
        const pick = order.slice(start, start + this.learner.fit(ordered, start, c.minibatch));
        start += pick.length;
        stats.push(
          await this.learner.update(
            pick.map((i) => samples[i] as Sample),
            pick.map((i) => (samples[i] as Sample).logp),
            ref ? pick.map((i) => ref[i] as Float32Array) : null,
            pick.map((i) => perSample[i] as number),
          ),
        );
        windowTokens += pick.reduce(
          (a, i) => a + (samples[i] as Sample).prompt.length + (samples[i] as Sample).tokens.length,
          0,
        );
      }
    }
    if (this.decoder instanceof WasmDecoder) this.decoder.load(await this.learner.weights());
    else this.decoder = new CpuExactDecoder(await this.learner.weights());
    const t3 = clock?.() ?? 0;
    this.done++;
    this.lastRollouts = samples.map((sample, i) => ({
      sample,
      reward: rewards[i] as number,
      correct: outcomes[i]?.correct === true,
    }));
    const m = iterationMetricsOf(it + 1, samples, outcomes, rewards, stats);
    if (clock) {
      const gen = samples.reduce((a, s) => a + s.tokens.length, 0);
      m.timings = { rolloutMs: t1 - t0, runMs: t2 - t1, updateMs: t3 - t2 };
      m.rolloutTokensPerSec = t1 > t0 ? (1000 * gen) / (t1 - t0) : 0;
      m.updateTokensPerSec = t3 > t2 ? (1000 * windowTokens) / (t3 - t2) : 0;
    }
    this.past.push(m);
    return m;
  }

  /** Held-out greedy designs of the current weights (or the SFT model's, `which: 'sft'`). */
  async evaluate(tasks: number, which: 'current' | 'sft' = 'current'): Promise<HeldOutDesign[]> {
    return evaluateOrchestrator({
      decoder:
        which === 'current'
          ? this.decoder
          : await decoderFor(this.o.choice, this.config, this.o.model.weights),
      format: this.o.format,
      run: this.o.run,
      tasks,
      values: this.config.values,
      maxNewTokens: this.config.maxNewTokens,
    });
  }

  /** The whole state: config, iteration, history, parameters and Adam moments. */
  async checkpoint(): Promise<OrchestratorCheckpoint> {
    return checkpointFromState({
      config: this.config,
      iteration: this.done,
      history: this.past,
      model: this.o.model.config.baton.provenance.name,
      state: await this.learner.exportState(),
    });
  }

  /** The designs sampled in the last iteration with their reward, for display. */
  sampledDesigns(): SampledOrchestration[] {
    return this.lastRollouts.map(({ sample: s, reward, correct }) => ({
      taskId: s.query.task.id,
      dom: s.query.dom,
      text: s.text,
      design: s.design,
      reward,
      correct,
    }));
  }

  dispose(): void {
    this.learner.dispose();
  }
}

const mean = (xs: readonly number[]): number =>
  xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;

export function iterationMetricsOf(
  iteration: number,
  samples: readonly Sample[],
  outcomes: readonly { correct: boolean | null; tokens: number }[],
  rewards: readonly number[],
  stats: readonly OrchestratorUpdateStats[],
): OrchestratorIterationMetrics {
  const low = samples.filter((s) => s.query.dom === 'low');
  const gen = samples.reduce((a, s) => a + s.tokens.length, 0);
  const forced = samples.reduce((a, s) => a + s.forced.reduce((x, y) => x + y, 0), 0);
  const tokensW = stats.reduce((a, u) => a + u.tokens, 0);
  const w = (k: keyof OrchestratorUpdateStats): number =>
    tokensW === 0 ? 0 : stats.reduce((a, u) => a + u[k] * u.tokens, 0) / tokensW;
  const r = mean(rewards);
  return {
    iteration,
    samples: samples.length,
    reward: r,
    rewardStd: Math.sqrt(mean(rewards.map((x) => (x - r) ** 2))),
    accuracy: mean(outcomes.map((o) => (o.correct === true ? 1 : 0))),
    tokensPerTask: mean(outcomes.map((o) => o.tokens)),
    designTokens: gen / Math.max(1, samples.length),
    forcedShare: gen === 0 ? 0 : forced / gen,
    agents: mean(samples.map((s) => s.design?.agents.length ?? 0)),
    depth: mean(samples.map((s) => (s.design ? designDepth(s.design) : 0))),
    validity: mean(samples.map((s) => (s.design ? 1 : 0))),
    lowDomDelegated:
      low.length === 0 ? null : mean(low.map((s) => ((s.design?.agents.length ?? 0) > 0 ? 1 : 0))),
    kl: w('kl'),
    entropy: w('entropy'),
    clipFraction: w('clipFraction'),
    loss: w('loss'),
    gradNorm: mean(stats.map((u) => u.gradNorm)),
    updates: stats.length,
    trainedTokens: tokensW,
  };
}
