import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { checkAnswer } from '../../src/answers/index.ts';
import { parseTraceJson } from '../../src/core/parse-trace.ts';
import { computeTotals } from '../../src/core/totals.ts';
import type { Task, Trace } from '../../src/core/trace.ts';
import { fromDesign, validateDesign } from '../../src/design/validate.ts';
import { checkConstruction } from '../../src/policy/check.ts';
import { actionReward, ActionRewardConfigSchema } from '../../src/policy/rewards.ts';
import { RESULT_TAGS } from '../../src/ui/gallery/result-tags.ts';
import { stepChoice } from '../../src/view/construction-choice.ts';
import { buildExamples, type ExampleEntry } from './examples.ts';
import { exampleFiles } from './files.ts';

const DIR = join('public', 'examples');

/** Every committed example trace, read as the gallery reads it. */
function committedTraces(): { file: string; trace: Trace }[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json') && f !== 'index.json')
    .sort()
    .map((file) => {
      const parsed = parseTraceJson(readFileSync(join(DIR, file), 'utf8'));
      if (!parsed.ok) throw new Error(`${file}: ${parsed.errors.map((p) => p.message).join('; ')}`);
      return { file, trace: parsed.value };
    });
}

/**
 * Re-grades an answer with the answer checker directly: several ground truths must all match in
 * order (`multi`), one is checked in `auto` mode; null without a ground truth.
 */
function regrade(answer: string, task: Task): boolean | null {
  const truths = task.groundTruths ?? [];
  if (truths.length > 1) return checkAnswer(answer, truths, 'multi').correct;
  const truth = truths[0] ?? task.groundTruth;
  if (truth === null || truth.trim() === '') return null;
  return checkAnswer(answer, truth).correct;
}

describe('bundled examples', () => {
  let examples: ExampleEntry[] = [];
  let files: Record<string, string> = {};
  beforeAll(async () => {
    examples = await buildExamples();
    files = exampleFiles(examples);
  });

  it('are committed exactly as the generator writes them (run `npm run examples`)', () => {
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(join(DIR, name), 'utf8'), name).toBe(text);
    }
  });

  it('are valid traces with valid designs and consistent totals', () => {
    for (const e of examples) {
      const parsed = parseTraceJson(files[e.file] as string);
      expect(parsed.ok, e.file).toBe(true);
      if (!parsed.ok) continue;
      const t = parsed.value;
      expect(validateDesign(fromDesign(t.design)), e.file).toEqual([]);
      expect(t.totals).toEqual(computeTotals(t.design, t.execution.events));
      // Every agent of the design ran (started) in the recorded execution.
      const started = new Set(
        t.execution.events.flatMap((ev) => (ev.type === 'agent.start' ? [ev.agentId] : [])),
      );
      expect([...started].sort(), e.file).toEqual(t.design.agents.map((a) => a.id).sort());
    }
  });

  it('record the correctness that re-grading their answers against the ground truth gives', () => {
    const traces = committedTraces();
    expect(traces.length).toBeGreaterThan(0);
    let intermediate = 0;
    for (const { file, trace } of traces) {
      const final = trace.result.finalAnswer;
      expect(trace.result.correct, `${file}: final answer`).toBe(
        final === null ? null : regrade(final, trace.task),
      );
      for (const step of trace.construction) {
        const answer = step.intermediateAnswer;
        if (answer === undefined) continue;
        intermediate += 1;
        expect(step.intermediateCorrect, `${file}: step ${step.index} answer ${JSON.stringify(answer)}`).toBe(
          answer === null ? null : regrade(answer, trace.task),
        );
      }
    }
    // The construction example records intermediate answers, so the loop above checked some.
    expect(intermediate).toBeGreaterThan(0);
  });

  it('record the action rewards and log-probabilities their constructions imply', () => {
    for (const { file, trace } of committedTraces()) {
      if (trace.construction.length === 0) continue;
      expect(checkConstruction(trace), file).toEqual([]);
      const config =
        trace.designer.kind === 'policy'
          ? ActionRewardConfigSchema.parse(trace.designer.rewards ?? {})
          : ActionRewardConfigSchema.parse({});
      let prev: boolean | null = false;
      for (const step of trace.construction) {
        if (step.intermediateCorrect === undefined) continue;
        const expected = actionReward(prev, step.intermediateCorrect, step.index, config);
        if (expected === null) expect(step.actionReward ?? null, `${file}: step ${step.index}`).toBeNull();
        else expect(step.actionReward, `${file}: step ${step.index}`).toBeCloseTo(expected, 12);
        prev = step.intermediateCorrect;
      }
    }
  });

  it('cover the structures the gallery promises', () => {
    const all = examples.map((e) => e.trace);
    const types = new Set(all.flatMap((t) => t.design.agents.map((a) => a.type)));
    for (const type of ['DebateAgent', 'ReflexionAgent', 'CEOAgent', 'SCAgent'])
      expect(types).toContain(type);
    expect(all.some((t) => t.execution.events.some((e) => e.type === 'agent.error'))).toBe(true);
    expect(all.some((t) => t.construction.length > 0)).toBe(true);
    // Parallel branches: some trace has two agents whose runs overlap in time.
    const overlaps = all.some((t) => {
      const starts = t.execution.events.filter((e) => e.type === 'agent.start');
      return starts.some((a, i) => starts.some((b, j) => i !== j && a.t === b.t));
    });
    expect(overlaps).toBe(true);
  });

  it('label the generated construction as a simulation of the prior', () => {
    const e = examples.find((x) => x.generated);
    expect(e?.trace.execution.backend.kind).toBe('simulated');
    expect(e?.trace.tags).toContain('simulated');
    expect(e?.trace.designer).toMatchObject({ kind: 'policy', checkpoint: 'prior' });
    expect(e?.trace.construction.every((s) => s.intermediateAnswer !== undefined)).toBe(true);
  });

  it('state their result once: as the badge, never again as a tag', () => {
    for (const e of examples) {
      for (const tags of [e.tags, e.trace.tags]) {
        expect(
          tags.filter((t) => RESULT_TAGS.has(t.toLowerCase())),
          e.file,
        ).toEqual([]);
      }
    }
  });

  it('name the construction the way its step panel reads it: greedy, the most probable action at every step', () => {
    const e = examples.find((x) => x.generated);
    const steps = e?.trace.construction ?? [];
    expect(steps.length).toBeGreaterThan(0);
    expect(e?.trace.title).toContain('greedy');
    expect(steps.map(stepChoice)).toEqual(steps.map(() => 'most-probable'));
  });
});
