import { AutoModelForCausalLM, LogitsProcessorList, Tensor, env } from '@huggingface/transformers';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/rng.ts';
import { loadDesignLogitsProcessor, tinyDesignSampling, tinyVersionOf } from '../../orchestrator/index.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import { parseOrchestratorCheckpoint } from '../../train/orchestrator.ts';
import { CpuExactDecoder, drawSplitTasks, sampleDesigns } from '../../train/orchestrator.ts';
import type { CliIO } from '../command.ts';
import { loadOrchestratorFolder } from './train-orchestrator.ts';
import { trainCommand } from './train.ts';

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'baton-train-orch-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir };
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('baton train --target orchestrator', () => {
  it('refuses bad targets, configs and model folders with the reason (exit 2)', async () => {
    expect(await trainCommand.run(['--target', 'critic', '--out', 'x'], io)).toBe(2);
    expect(err.at(-1)).toMatch(/--target must be policy or orchestrator/);
    expect(await trainCommand.run(['--target', 'orchestrator'], io)).toBe(2);
    expect(err.join('\n')).toMatch(/--out/);
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ groupSize: 1, clipEps: 2 }));
    expect(
      await trainCommand.run(['--target', 'orchestrator', '--config', 'bad.json', '--out', 'm'], io),
    ).toBe(2);
    expect(err.at(-1)).toMatch(/groupSize: .*clipEps/);
    await mkdir(join(dir, 'hub'));
    await writeFile(join(dir, 'hub', 'config.json'), JSON.stringify({ model_type: 'llama', vocab_size: 10 }));
    await writeFile(join(dir, 'hub', 'tokenizer.json'), '{}');
    await writeFile(join(dir, 'hub', 'tokenizer_config.json'), '{}');
    await mkdir(join(dir, 'hub', 'onnx'));
    await writeFile(join(dir, 'hub', 'onnx', 'model.onnx'), 'x');
    expect(await trainCommand.run(['--target', 'orchestrator', '--model', 'hub', '--out', 'm'], io)).toBe(2);
    expect(err.at(-1)).toMatch(/not a usable orchestrator model folder: config\.json/);
    await writeFile(join(dir, 'cp.json'), '{"format":"baton.train/1"}');
    expect(
      await trainCommand.run(['--target', 'orchestrator', '--resume', 'cp.json', '--out', 'm'], io),
    ).toBe(2);
    expect(err.at(-1)).toMatch(/bad checkpoint cp\.json: format/);
  });

  it('trains, evaluates before/after and writes a model folder whose greedy designs equal the compute core’s', async () => {
    await writeFile(
      join(dir, 'small.json'),
      JSON.stringify({ tasksPerIteration: 2, groupSize: 2, minibatch: 4, lr: 1e-3, evalTasks: 1 }),
    );
    const code = await trainCommand.run(
      [
        '--target',
        'orchestrator',
        '--config',
        'small.json',
        '--iterations',
        '1',
        '--seed',
        '2',
        '--out',
        'grpo',
        '--checkpoint',
        'cp.json',
      ],
      io,
    );
    expect(err.join('\n')).toMatch(
      /iteration 1\/1: reward .* KL .* entropy .* clip .* rollout \d+ tok\/s · update \d+ tok\/s/,
    );
    expect(code).toBe(0);
    expect(out.join('\n')).toMatch(/SFT +accuracy[\s\S]*GRPO +accuracy[\s\S]*after - before: accuracy/);
    const report = JSON.parse(await readFile(join(dir, 'grpo', 'grpo-report.json'), 'utf8'));
    expect(report.history).toHaveLength(1);
    expect(report.heldOut.before.n).toBe(2);
    const cp = parseOrchestratorCheckpoint(await readFile(join(dir, 'cp.json'), 'utf8'));
    expect(cp.ok && cp.checkpoint.iteration).toBe(1);

    const m = await loadOrchestratorFolder(join(dir, 'grpo'));
    expect(m.config.baton.provenance.name).toBe('baton-orchestrator-tiny-grpo');
    expect(m.maxQueryTokens).toBe(64);
    const format = tinyDesignSampling({
      tokenizer: m.tokenizer,
      vocabSize: m.weights.config.vocabSize,
      maxQueryTokens: m.maxQueryTokens,
      pool: DEFAULT_POOL,
    });
    const tasks = drawSplitTasks({ count: 2, baseSeed: 11, split: 'test', values: [2, 3, 4] });
    const queries = tasks.flatMap((task) => [
      { task, dom: 'low' as const },
      { task, dom: 'high' as const },
    ]);
    const core = await sampleDesigns({
      decoder: new CpuExactDecoder(m.weights),
      format,
      queries,
      group: 1,
      temperature: 1,
      greedy: true,
      rng: createRng(0),
      maxNewTokens: 256,
    });
    const DesignLogitsProcessor = await loadDesignLogitsProcessor();
    env.allowLocalModels = true;
    env.localModelPath = dirname(join(dir, 'grpo'));
    const lm = await AutoModelForCausalLM.from_pretrained('grpo', { dtype: 'fp32', device: 'cpu' });
    for (const s of core) {
      expect(s.design).not.toBeNull();
      const budget = Math.min(256, m.weights.config.nPositions - s.prompt.length);
      const list = new LogitsProcessorList();
      list.push(new DesignLogitsProcessor(await format.constraint(s.query.dom, budget)));
      const input_ids = new Tensor('int64', BigInt64Array.from(s.prompt.map(BigInt)), [1, s.prompt.length]);
      const gen = (await lm.generate({
        input_ids,
        max_new_tokens: budget,
        do_sample: false,
        logits_processor: list,
      })) as InstanceType<typeof Tensor>;
      const ids = Array.from(gen.data as BigInt64Array, Number).slice(s.prompt.length);
      expect(ids).toEqual(s.tokens);
    }
    await lm.dispose();
  }, 600_000);

  it('trains the v2 model in its own format: the whole query, the v2 grammar, and a tiny2 folder out', async () => {
    await writeFile(
      join(dir, 'v2.json'),
      JSON.stringify({ tasksPerIteration: 1, groupSize: 2, minibatch: 2, evalTasks: 0, dom: 'low' }),
    );
    const model = resolve('models', 'baton-orchestrator-tiny-v2');
    const code = await trainCommand.run(
      [
        '--target',
        'orchestrator',
        '--model',
        model,
        '--config',
        'v2.json',
        '--iterations',
        '1',
        '--out',
        'v2',
      ],
      io,
    );
    expect(code).toBe(0);
    const m = await loadOrchestratorFolder(join(dir, 'v2'));
    expect(tinyVersionOf(m.config)).toBe(2);
    const sampling = (format?: 'tiny2') =>
      tinyDesignSampling({
        tokenizer: m.tokenizer,
        vocabSize: m.weights.config.vocabSize,
        maxQueryTokens: 16,
        pool: DEFAULT_POOL,
        ...(format ? { format } : {}),
      });
    const [v2, v1] = [sampling('tiny2'), sampling()];
    // The whole query: version 2 ignores the query limit that version 1 cuts a long query to.
    const [task] = drawSplitTasks({ count: 1, baseSeed: 5, split: 'test', values: [12] });
    const query = (task as { question: string }).question;
    expect(v1.promptIds(query, 'high').length).toBeLessThan(24);
    expect(v2.promptIds(query, 'high').length).toBeGreaterThan(100);
    // The v2 grammar: low DoM may answer directly (no agent), which version 1 cannot read.
    const direct = '<thinking>one line</thinking><answer>42</answer>';
    expect(v2.read(direct, 'low')).toMatchObject({ design: { agents: [] }, problems: [] });
    expect(v2.read(direct, 'high').design).toBeNull();
    expect(v1.read(direct, 'low').design).toBeNull();
  }, 600_000);
});
