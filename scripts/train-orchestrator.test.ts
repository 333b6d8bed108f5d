import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDesignXml } from '../src/design/xml.ts';
import { tokenizerFromJson } from '../src/lm/index.ts';
import { taskOfMasbench } from '../src/masbench/index.ts';
import {
  canonicalDesign,
  drawTeacherTasks,
  expandTinyDesign,
  scoreSeed,
  teacherExamples,
  tinyDesignText,
  tinyPromptIds,
} from '../src/orchestrator/index.ts';
import {
  BatchedPolicy,
  DEFAULT_POOL,
  constructMany,
  priorCheckpoint,
  groupReward,
} from '../src/policy/index.ts';
import {
  QUICK,
  endId,
  makeOrchestratorModel,
  referenceDecoder,
  writeFolder,
  type RunResult,
} from './train-orchestrator.ts';
import { simulatorRun } from './orchestrator-quality.ts';

const pool = DEFAULT_POOL;
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;

describe('tiny designs on the simulator', () => {
  it('a teacher design written as tiny text, parsed and expanded scores exactly as the design itself', async () => {
    const tasks = drawTeacherTasks({ count: 10, baseSeed: 21, split: 'train', values: [2, 4, 6] });
    const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 10 });
    const built = await constructMany({
      policy,
      pool,
      episodes: tasks.map((t, i) => ({ task: taskOfMasbench(t), seed: 5 + i })),
    });
    policy.dispose();
    let right = 0;
    for (const [i, task] of tasks.entries()) {
      const design = canonicalDesign(
        (built[i] as { design: Parameters<typeof canonicalDesign>[0] }).design,
        pool,
      );
      const parsed = parseDesignXml(tinyDesignText(design, pool), 'high');
      const back = expandTinyDesign(parsed.design as NonNullable<typeof parsed.design>, pool);
      if (!back.ok) throw new Error(back.problems.join('; '));
      for (const k of [0, 1, 2]) {
        const a = await simulatorRun(design, task, scoreSeed(task, k));
        const b = await simulatorRun(back.design, task, scoreSeed(task, k));
        expect(b).toEqual(a);
        expect(a.tokens).toBeGreaterThan(0);
        if (a.correct) right++;
      }
    }
    // The simulator's outcomes vary (some right, some wrong), so equal outcomes say something.
    expect(right).toBeGreaterThan(0);
    expect(right).toBeLessThan(30);
  });

  it('the teacher keeps the candidate with the best mean simulator reward', async () => {
    const tasks = drawTeacherTasks({ count: 4, baseSeed: 8, split: 'train', values: [3, 5] });
    const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 16 });
    const [ex] = await teacherExamples(tasks.slice(0, 1), {
      pool,
      policy,
      run: simulatorRun,
      samples: 4,
      seeds: 2,
    });
    policy.dispose();
    if (!ex) throw new Error('no example');
    let reward = 0;
    for (const k of [0, 1]) {
      const r = await simulatorRun(ex.high.design, ex.task, scoreSeed(ex.task, k));
      reward += groupReward(r.correct === true, r.tokens, { lambda: 0.1, costScale: 20_000 }) / 2;
    }
    expect(ex.high.reward).toBeCloseTo(reward, 12);
    // Low DoM: no single-agent design of the pool does better.
    for (const role of pool.roles) {
      const parsed = parseDesignXml(
        tinyDesignText(
          {
            dom: 'low',
            agents: [
              { id: 'x', type: role.agentType, description: '', input: '', role: role.name, params: {} },
            ],
            edges: [],
          },
          pool,
        ),
        'low',
      );
      const one = expandTinyDesign(parsed.design as NonNullable<typeof parsed.design>, pool);
      if (!one.ok) throw new Error(one.problems.join('; '));
      let r = 0;
      for (const k of [0, 1]) {
        const x = await simulatorRun(one.design, ex.task, scoreSeed(ex.task, k));
        r += groupReward(x.correct === true, x.tokens, { lambda: 0.1, costScale: 20_000 }) / 2;
      }
      expect(r).toBeLessThanOrEqual(ex.low.reward + 1e-12);
    }
  });
});

describe('train-orchestrator --quick', () => {
  let run: RunResult;
  let dir = '';
  beforeAll(async () => {
    run = await makeOrchestratorModel({ ...QUICK, seed: 3 }, { quality: false, log: () => {} });
    dir = mkdtempSync(join(tmpdir(), 'baton-orchestrator-'));
    writeFolder(join(dir, 'tiny'), run.files);
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dir;
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the transformers.js folder and a training report', () => {
    expect([...run.files.keys()].sort()).toEqual(
      [
        'config.json',
        'generation_config.json',
        'onnx/model.onnx',
        'onnx/model_q4.onnx',
        'onnx/model_quantized.onnx',
        'tokenizer.json',
        'tokenizer_config.json',
        'training-report.json',
      ].sort(),
    );
    const report = JSON.parse(run.files.get('training-report.json') as string) as {
      seed: number;
      training: { loss: number[]; steps: number };
      data: { examplesUsed: number; pairs: number };
    };
    expect(report.seed).toBe(3);
    expect(report.training.loss).toHaveLength(QUICK.steps);
    expect(report.training.loss.every(Number.isFinite)).toBe(true);
    expect(report.data.pairs).toBe(2 * QUICK.trainTasks);
    expect(report.data.examplesUsed).toBeGreaterThan(0);
  });

  it('is deterministic under its seed', async () => {
    const again = await makeOrchestratorModel({ ...QUICK, seed: 3 }, { quality: false, log: () => {} });
    expect(again.files.get('onnx/model.onnx')).toEqual(run.files.get('onnx/model.onnx'));
    expect(again.files.get('tokenizer.json')).toEqual(run.files.get('tokenizer.json'));
    const strip = (t: string) => ({ ...(JSON.parse(t) as object), wallSeconds: null });
    expect(strip(again.files.get('training-report.json') as string)).toEqual(
      strip(run.files.get('training-report.json') as string),
    );
  }, 120_000);

  it('loads in transformers.js and generates what the reference decoder writes', async () => {
    const parsed = tokenizerFromJson(run.files.get('tokenizer.json') as string);
    if (!parsed.ok) throw new Error(parsed.message);
    const tok = parsed.tokenizer;
    const hfTok = await AutoTokenizer.from_pretrained('tiny');
    const model = await AutoModelForCausalLM.from_pretrained('tiny', { dtype: 'fp32', device: 'cpu' });
    try {
      const weightsConfig = JSON.parse(run.files.get('config.json') as string) as { n_positions: number };
      const task = drawTeacherTasks({ count: 1, baseSeed: 2, split: 'test', values: [3] })[0];
      if (!task) throw new Error('no task');
      const prompt = tinyPromptIds(task.question, 'high', (s) => tok.encode(s), QUICK.maxQueryTokens);
      const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
      const out = (await model.generate({
        input_ids,
        max_new_tokens: weightsConfig.n_positions - prompt.length,
        do_sample: false,
      })) as Tensor;
      const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
      const end = endId(tok);
      const cut = ids.includes(end) ? ids.slice(0, ids.indexOf(end)) : ids;
      const text = cut.length > 0 ? hfTok.decode(cut) : '';
      expect(cut.length).toBeGreaterThan(0);
      expect(text).toBe(tok.decode(cut));
      // The exported ONNX model writes what the reference forward pass on the trained weights writes.
      const reference = await referenceDecoder(
        run.weights,
        run.tokenizer,
        QUICK.maxQueryTokens,
      )(task, 'high');
      expect(text).toBe(reference);
      // Constrained (free text fields capped to fit its 128 positions), even this barely trained
      // model writes a design that expands and validates.
      const low = await referenceDecoder(
        run.weights,
        run.tokenizer,
        QUICK.maxQueryTokens,
        true,
        8,
      )(task, 'low');
      const read = parseDesignXml(low, 'low');
      expect(read.problems).toEqual([]);
      const expanded = expandTinyDesign(read.design as NonNullable<typeof read.design>, pool);
      expect(expanded.ok).toBe(true);
    } finally {
      await model.dispose();
    }
  }, 120_000);
});
