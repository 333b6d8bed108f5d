import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARCHIVE_AGENTS } from '../src/eval/methods.ts';
import { tokenizerFromJson } from '../src/lm/index.ts';
import {
  ARCHIVE_ROLES,
  drawTeacherTasks,
  planNotes,
  readTiny2,
  scoreSeed,
  staticCandidates,
  teacher2Examples,
  tiny2PlanText,
  tinyQueryText,
} from '../src/orchestrator/index.ts';
import { BatchedPolicy, DEFAULT_POOL, groupReward, priorCheckpoint } from '../src/policy/index.ts';
import { simulatorRun } from './orchestrator-quality.ts';
import { cachedSimulator, longestTestQuery, readCheckpoint } from './orchestrator-v2-data.ts';
import {
  QUICK,
  TEACHER_POLICY,
  endId,
  makeOrchestratorModel,
  promptOf,
  referenceDecoder,
  writeFolder,
  type RunResult,
} from './train-orchestrator.ts';

const pool = DEFAULT_POOL;
const CPU = { backend: 'cpu', reason: 'test', adapter: null, ctx: null } as const;
const REWARD = { lambda: 0.1, costScale: 20_000 };

describe('the v2 teacher on the simulator', () => {
  it('the archive roles run at the archive defaults of `baton eval`', () => {
    for (const r of ARCHIVE_ROLES) {
      const a = Object.values(ARCHIVE_AGENTS).find((x) => x.type === r.agentType);
      expect({ name: r.name, params: r.params }).toEqual({ name: r.name, params: a?.params });
    }
  });

  it('keeps, per DoM, the candidate with the best mean reward; texts read back run the same', async () => {
    const tasks = drawTeacherTasks({ count: 3, baseSeed: 8, split: 'train', values: [3, 9] });
    const policy = BatchedPolicy.create(priorCheckpoint(pool), CPU, { maxBatch: 12 });
    const ex = await teacher2Examples(tasks, {
      pool,
      policy,
      run: cachedSimulator(),
      samples: 4,
      seeds: 2,
      maxSteps: 5,
    });
    policy.dispose();
    const mean = async (plan: Parameters<typeof tiny2PlanText>[0], task: (typeof tasks)[number]) => {
      const text = tiny2PlanText(plan, planNotes(plan, pool, task), pool);
      const read = readTiny2(text, plan.dom, pool);
      if (!read.ok) throw new Error(read.problems.join('; '));
      let r = 0;
      for (const k of [0, 1]) {
        // A fresh simulator per run: the teacher's cached runner must agree with it.
        const x = await simulatorRun(read.design, task, scoreSeed(task, k));
        r += groupReward(x.correct === true, x.tokens, REWARD) / 2;
      }
      return r;
    };
    for (const e of ex) {
      expect(e.candidates).toBeGreaterThan(staticCandidates(pool).length);
      expect(await mean(e.high.plan, e.task)).toBeCloseTo(e.high.reward, 12);
      expect(await mean(e.low.plan, e.task)).toBeCloseTo(e.low.reward, 12);
      expect(e.high.reward).toBeGreaterThanOrEqual(e.low.reward);
      expect(e.low.plan.agents.length).toBeLessThanOrEqual(1);
      expect(e.high.plan.agents.length).toBeGreaterThanOrEqual(1);
      // No static candidate beats the chosen high design.
      for (const c of staticCandidates(pool).slice(0, 6)) {
        expect(await mean({ ...c.plan, dom: 'high' }, e.task)).toBeLessThanOrEqual(e.high.reward + 1e-12);
      }
    }
  }, 120_000);
});

describe('train-orchestrator --quick (v2)', () => {
  let run: RunResult;
  let dir = '';
  beforeAll(async () => {
    run = await makeOrchestratorModel({ ...QUICK, seed: 3 }, { log: () => {} });
    dir = mkdtempSync(join(tmpdir(), 'baton-orchestrator-'));
    writeFolder(join(dir, 'tiny'), run.files);
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dir;
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the folder; positions hold the longest held-out query plus the longest design; nothing dropped', () => {
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
      promptFormat: string;
      training: { loss: number[] };
      data: {
        pairs: number;
        examplesUsed: number;
        examplesTooLong: number;
        positions: { longestHeldOutQuery: { tokens: number }; longestDesign: number; nPositions: number };
      };
    };
    expect(report.promptFormat).toBe('tiny2');
    expect(report.training.loss).toHaveLength(QUICK.steps);
    expect(report.data.pairs).toBe(2 * QUICK.trainTasks);
    expect(report.data.examplesUsed).toBe(report.data.pairs);
    expect(report.data.examplesTooLong).toBe(0);
    const p = report.data.positions;
    expect(p.nPositions).toBe(run.weights.config.nPositions);
    expect(p.nPositions).toBeGreaterThanOrEqual(p.longestHeldOutQuery.tokens + 2 + p.longestDesign);
    // The measurement is real: recomputing it gives the same longest query.
    const again = longestTestQuery(run.tokenizer, QUICK.values, QUICK.measurePerCell, 3 + 1000);
    expect(again.tokens).toBe(p.longestHeldOutQuery.tokens);
    const config = JSON.parse(run.files.get('config.json') as string) as {
      baton: { provenance: { training: { format: string } } };
    };
    expect(config.baton.provenance.training.format).toBe('tiny2');
  });

  it('times the first steps on the other backend too: the same losses, a time per step for each', () => {
    const report = JSON.parse(run.files.get('training-report.json') as string) as {
      training: { backend: string; loss: number[]; otherBackend: { backend: string; loss: number[] } };
      wallSeconds: { msPerStepByBackend: Record<string, number | null> };
    };
    const t = report.training;
    expect([t.backend, t.otherBackend.backend]).toEqual(['cpu', 'wasm']);
    expect(t.otherBackend.loss).toHaveLength(QUICK.compareSteps);
    // The same schedule, weights and examples on the wasm kernels: the losses agree within rounding.
    t.otherBackend.loss.forEach((l, i) => expect(Math.abs(l - (t.loss[i] as number))).toBeLessThan(1e-3));
    const ms = report.wallSeconds.msPerStepByBackend;
    expect(Object.keys(ms).sort()).toEqual(['cpu', 'wasm']);
    for (const v of Object.values(ms)) expect(v).toBeGreaterThan(0);
  });

  it('the prompt holds the whole query', () => {
    const task = drawTeacherTasks({ count: 1, baseSeed: 4, split: 'test', values: [12] })[0];
    if (!task) throw new Error('no task');
    const ids = promptOf(run.tokenizer, task.question, 'high');
    expect(ids.slice(1, -1)).toEqual(run.tokenizer.encode(tinyQueryText(task.question)));
  });

  it('is deterministic under its seed', async () => {
    const again = await makeOrchestratorModel({ ...QUICK, seed: 3 }, { log: () => {} });
    expect(again.files.get('onnx/model.onnx')).toEqual(run.files.get('onnx/model.onnx'));
    expect(again.files.get('tokenizer.json')).toEqual(run.files.get('tokenizer.json'));
    const strip = (t: string) => ({ ...(JSON.parse(t) as object), wallSeconds: null });
    expect(strip(again.files.get('training-report.json') as string)).toEqual(
      strip(run.files.get('training-report.json') as string),
    );
  }, 180_000);

  it('transformers.js tokenizes as ours (phrase tokens included), generates what the reference decoder writes; constrained output reads', async () => {
    const parsed = tokenizerFromJson(run.files.get('tokenizer.json') as string);
    if (!parsed.ok) throw new Error(parsed.message);
    const tok = parsed.tokenizer;
    const hfTok = await AutoTokenizer.from_pretrained('tiny');
    for (const t of drawTeacherTasks({ count: 10, baseSeed: 5, split: 'test', values: [2, 7, 12] })) {
      const q = tinyQueryText(t.question);
      expect(hfTok.encode(q, { add_special_tokens: false })).toEqual(tok.encode(q));
    }
    const model = await AutoModelForCausalLM.from_pretrained('tiny', { dtype: 'fp32', device: 'cpu' });
    try {
      const n = run.weights.config.nPositions;
      const task = drawTeacherTasks({ count: 1, baseSeed: 2, split: 'test', values: [3] })[0];
      if (!task) throw new Error('no task');
      const prompt = promptOf(tok, task.question, 'high');
      const input_ids = new Tensor('int64', BigInt64Array.from(prompt.map(BigInt)), [1, prompt.length]);
      const out = (await model.generate({
        input_ids,
        max_new_tokens: n - prompt.length,
        do_sample: false,
      })) as Tensor;
      const ids = Array.from(out.data as BigInt64Array, Number).slice(prompt.length);
      const end = endId(tok);
      const cut = ids.includes(end) ? ids.slice(0, ids.indexOf(end)) : ids;
      expect(cut.length).toBeGreaterThan(0);
      const text = hfTok.decode(cut);
      expect(text).toBe(tok.decode(cut));
      expect(text).toBe(await referenceDecoder(run.weights, run.tokenizer)(task, 'high'));
      for (const dom of ['low', 'high'] as const) {
        const written = await referenceDecoder(run.weights, run.tokenizer, true, 8)(task, dom);
        const read = readTiny2(written, dom, pool);
        expect(read.ok ? [] : read.problems).toEqual([]);
      }
    } finally {
      await model.dispose();
    }
  }, 180_000);
});

describe('the committed teacher policy', () => {
  it('is the checkpoint the training script names, the one the shipped v2 model was taught from', () => {
    const { checkpoint, sha256 } = readCheckpoint(TEACHER_POLICY.file);
    expect(checkpoint.params).toBeDefined();
    const report = JSON.parse(
      readFileSync('models/baton-orchestrator-tiny-v2/training-report.json', 'utf8'),
    ) as { teacherPolicy: { sha256: string; command: string } };
    expect(report.teacherPolicy.sha256).toBe(sha256);
    expect(report.teacherPolicy.command).toBe(TEACHER_POLICY.command);
  });
});
