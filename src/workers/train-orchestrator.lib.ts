/**
 * The orchestrator GRPO trainer (src/train orchestrator-*.ts) as the training worker's session
 * drives it (`OrchTrainLib`, train-orchestrator.session.ts): the SFT model read from its folder,
 * trainers made fresh or from a checkpoint, the simulator's fast path as the design runner, the
 * before/after held-out evaluation, and the current weights written as a model folder (fp32, q8,
 * q4) through the ONNX export the offline model is made with.
 */
import { minimalTrace } from '../core/trace-builders.ts';
import { simulatedRunners } from '../executor/train-runners.ts';
import type { ModelProvenance } from '../lm/index.ts';
import { taskOfMasbench } from '../masbench/index.ts';
import { tinyDesignSampling, tinyVersionOf, type DesignRunner } from '../orchestrator/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import {
  orchestratorTrainConfig,
  parseOrchestratorCheckpoint,
  type OrchestratorCheckpoint,
} from '../train/orchestrator.ts';
import {
  OrchestratorTrainer,
  beforeAfter,
  orchestratorFolderFiles,
  readOrchestratorModel,
  type OrchestratorModel,
} from '../train/orchestrator.ts';
import type {
  OrchFolderFiles,
  OrchModelHandle,
  OrchTrainLib,
  OrchTrainerPort,
} from './train-orchestrator.session.ts';
import type { OrchMetrics, OrchRunInfo, OrchSampled } from './train-orchestrator.methods.ts';

/** The simulator's fast path (src/executor/train-runners.ts) as a design runner: simulated sub-agents. */
export const simulatorRun: DesignRunner = (design, task, seed) =>
  simulatedRunners(task, seed).final({
    ...minimalTrace({ query: task.question }),
    task: taskOfMasbench(task),
    design,
  });

interface Handle extends OrchModelHandle {
  model: OrchestratorModel;
  format: ReturnType<typeof tinyDesignSampling>;
}

function checkpointOf(text: string): OrchestratorCheckpoint {
  const r = parseOrchestratorCheckpoint(text);
  if (!r.ok)
    throw new Error(`the saved orchestrator checkpoint is not usable: ${r.problems.slice(0, 4).join('; ')}`);
  return r.checkpoint;
}

/** `masbench-<axis>-<value>-<seed>` → axis and value. */
const axisOf = (id: string): { axis: string; value: number } => {
  const m = /^masbench-([a-z]+)-(\d+)-/.exec(id);
  return m ? { axis: m[1] as string, value: Number(m[2]) } : { axis: 'task', value: 0 };
};

function port(trainer: OrchestratorTrainer, h: Handle): OrchTrainerPort {
  return {
    get iteration() {
      return trainer.iteration;
    },
    get history() {
      return trainer.history as readonly OrchMetrics[];
    },
    iterate: () => trainer.iterate() as Promise<OrchMetrics>,
    sampled: (): OrchSampled[] =>
      trainer.sampledDesigns().map((s) => {
        return {
          taskId: s.taskId,
          ...axisOf(s.taskId),
          dom: s.dom,
          text: s.text.slice(0, 20_000),
          design: s.design,
          reward: s.reward,
          correct: s.correct,
        };
      }),
    checkpointText: async () => JSON.stringify(await trainer.checkpoint()),
    async evaluate(tasks) {
      const before = await trainer.evaluate(tasks, 'sft');
      const after = await trainer.evaluate(tasks, 'current');
      return beforeAfter(before, after);
    },
    folder({ name, iteration }) {
      const source = h.model.config.baton.provenance;
      const meta: ModelProvenance = {
        name,
        description: `${source.name} after ${iteration} GRPO iterations in the Train page (simulated sub-agents)`,
        source: 'baton Train page: GRPO of the orchestrator LM',
        training: { ...(source.training ?? {}), grpoIterations: iteration, grpoFrom: source.name },
        createdAt: new Date().toISOString(),
      };
      return orchestratorFolderFiles(h.model, trainer.weights, { meta });
    },
    dispose: () => trainer.dispose(),
  };
}

export const orchTrainLib: OrchTrainLib = {
  readModel(files: OrchFolderFiles): Handle {
    const model = readOrchestratorModel(files);
    const c = model.weights.config;
    let params = 0;
    for (const a of model.weights.params.values()) params += a.length;
    const promptFormat = tinyVersionOf(model.config) === 2 ? 'tiny2' : 'tiny';
    const format = tinyDesignSampling({
      tokenizer: model.tokenizer,
      vocabSize: c.vocabSize,
      maxQueryTokens: model.maxQueryTokens,
      pool: DEFAULT_POOL,
      format: promptFormat,
    });
    return {
      model,
      format,
      promptFormat,
      name: model.config.baton.provenance.name,
      params,
      positions: c.nPositions,
    };
  },
  async create({ model, config, choice, checkpoint }) {
    const h = model as Handle;
    const resume = checkpoint === undefined ? undefined : checkpointOf(checkpoint);
    const trainer = await OrchestratorTrainer.create({
      model: h.model,
      format: h.format,
      config: orchestratorTrainConfig(config),
      choice,
      run: simulatorRun,
      ...(resume ? { resume } : {}),
      clock: () => performance.now(),
    });
    return port(trainer, h);
  },
  runInfo(text): OrchRunInfo {
    const c = checkpointOf(text);
    return {
      iteration: c.iteration,
      model: c.model,
      config: c.config as unknown as Record<string, unknown>,
      history: c.history as OrchMetrics[],
    };
  },
};
