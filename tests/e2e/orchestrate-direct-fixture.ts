/**
 * A TEST FIXTURE, never a model: the shipped v2 orchestrator (models/baton-orchestrator-tiny-v2,
 * format `tiny2`) fine-tuned for a few steps, with the project's own trainer (`trainTinyGpt` on the
 * compute core's CPU backend), on low-DoM examples that all take MAS-Orchestra's direct-answer
 * branch: the thinking says no sub-agent is worth its cost, then `<answer>…</answer>` with no agent.
 *
 * The shipped v2 delegates on every held-out low-DoM task, so nothing it writes exercises the
 * direct branch; this folder does, so the Orchestrate page, the trace and `baton orchestrate` can be
 * checked end to end on a direct answer a real model chose (greedy, under the real constraint).
 * It is built at test time into a scratch folder, named `baton-e2e-direct-fixture`, and says in its
 * config.json that it is a fixture. What its answers are worth is not the point (they are the
 * ground truth of a few train-split tasks, learnt by rote); that it chooses the branch is.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { trainTinyGpt, type LmExample } from '../../src/lm/index.ts';
import { AXES, generateTask } from '../../src/masbench/index.ts';
import { TINY_TOKENS, planNotes, tiny2PlanText, tinyPromptIds } from '../../src/orchestrator/index.ts';
import { DEFAULT_POOL } from '../../src/policy/index.ts';
import { orchestratorFolderFiles, readOrchestratorModel } from '../../src/train/orchestrator-model.ts';

export const DIRECT_FIXTURE_NAME = 'baton-e2e-direct-fixture';
/** The one answer the fixture learns to write (by rote: a fixture says nothing about answers). */
export const DIRECT_FIXTURE_ANSWER = '7';
const V2 = resolve('models/baton-orchestrator-tiny-v2');

/** Low-DoM direct-answer examples for generated train-split tasks of every axis. */
function directExamples(encode: (t: string) => number[], endId: number): LmExample[] {
  const out: LmExample[] = [];
  for (const axis of AXES)
    for (const value of [2]) {
      const task = generateTask({ axis, value, seed: 1 });
      const plan = { dom: 'low' as const, agents: [], direct: DIRECT_FIXTURE_ANSWER };
      const text = tiny2PlanText(plan, planNotes(plan, DEFAULT_POOL, { axis, value }), DEFAULT_POOL);
      out.push({
        prompt: tinyPromptIds(task.question, 'low', encode, Number.POSITIVE_INFINITY),
        target: [...encode(text), endId],
      });
    }
  return out;
}

/** Writes the fixture folder into `dir` (created); answers the final training loss. */
export async function writeDirectFixtureModel(dir: string, steps = 10): Promise<{ loss: number }> {
  const model = readOrchestratorModel({
    config: await readFile(join(V2, 'config.json'), 'utf8'),
    tokenizer: await readFile(join(V2, 'tokenizer.json'), 'utf8'),
    tokenizerConfig: await readFile(join(V2, 'tokenizer_config.json'), 'utf8'),
    onnx: new Uint8Array(await readFile(join(V2, 'onnx/model.onnx'))),
  });
  const encode = (t: string): number[] => model.tokenizer.encode(t);
  if (model.tokenizer.idOf(TINY_TOKENS.end) !== model.endId) throw new Error('v2 end token moved');
  const examples = directExamples(encode, model.endId);
  const seq = Math.max(...examples.map((e) => e.prompt.length + e.target.length));
  const run = await trainTinyGpt({
    weights: model.weights,
    examples,
    config: { batch: 5, seq, steps, lr: 4e-3, warmup: 0, pack: false, seed: 1 },
  });
  const files = orchestratorFolderFiles(model, run.weights, {
    dtypes: ['fp32', 'q8'],
    meta: {
      name: DIRECT_FIXTURE_NAME,
      description:
        'TEST FIXTURE, not a model: baton-orchestrator-tiny-v2 fine-tuned a few steps on low-DoM direct answers, so the direct-answer branch can be tested end to end.',
      source: 'tests/e2e/orchestrate-direct-fixture.ts',
      seed: 1,
      training: { format: 'tiny2', maxQueryTokens: model.maxQueryTokens, steps },
    },
  });
  for (const [path, data] of files) {
    const full = join(dir, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, data);
  }
  return { loss: run.curve[run.curve.length - 1]?.loss ?? Number.NaN };
}
