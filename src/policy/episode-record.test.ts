/**
 * `recordResult` copies a sampled step field by field instead of spreading it (a spread that then
 * gains fields is slow in V8): the recorded step must be the spread form's, fields in the same
 * order (traces are JSON), whatever the result carries.
 */
import { describe, expect, it } from 'vitest';
import type { ConstructionStep } from '../core/trace.ts';
import { generateTask, taskOfMasbench } from '../masbench/index.ts';
import { encodeTask } from './encoder.ts';
import { currentState, recordResult, startEpisode, stepSettings, takeStep, type Episode } from './episode.ts';
import { PolicyNetwork } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { actionReward } from './rewards.ts';
import { DEFAULT_POOL } from './roles.ts';
import { stepPolicyOf } from './sample.ts';
import type { StepResult } from './step-types.ts';

const pool = DEFAULT_POOL;
const RUN = {
  backend: 'simulated',
  status: 'completed',
  calls: 2,
  cachedCalls: 0,
  promptTokens: 10,
  completionTokens: 5,
  costUsd: 0,
} as const;

/** The reference form: the spread. */
const spread = (s: ConstructionStep, r: StepResult, reward: number | null): ConstructionStep => ({
  ...s,
  intermediateAnswer: r.answer,
  intermediateCorrect: r.correct,
  ...(r.run ? { intermediateRun: r.run } : {}),
  actionReward: reward,
});

describe('recordResult', () => {
  it('records a step exactly as the spread form does, fields in its order', async () => {
    const task = taskOfMasbench(generateTask({ axis: 'depth', value: 3, seed: 4 }));
    const cp = priorCheckpoint(pool);
    const net = await PolicyNetwork.cpu(cp);
    try {
      let ep: Episode = startEpisode({
        task,
        policyName: 'p',
        backend: 'cpu',
        seed: 9,
        executes: true,
        pool,
        limits: { maxAgents: cp.config.maxAgents, maxSteps: 8 },
      });
      const out = await stepPolicyOf(net).step(
        encodeTask(task.query, cp.config.hashDim),
        currentState(ep),
        stepSettings(ep),
        {},
      );
      ep = takeStep(ep, out);
      const results: StepResult[] = [
        { answer: '7', correct: true },
        { answer: null, correct: null },
        { answer: 'REFUSE: no', correct: false, run: RUN },
      ];
      for (const r of results) {
        const reward = actionReward(false, r.correct, 0, ep.rewards);
        const rec = recordResult(ep, 1, r);
        const step = rec.frames[1]?.step as ConstructionStep;
        expect(JSON.stringify(step)).toBe(JSON.stringify(spread(out.step, r, reward)));
        expect(Object.keys(step)).toEqual(Object.keys(spread(out.step, r, reward)));
        // Recorded again (the step already has the fields), and a step with a field of its own.
        const again = recordResult(rec, 1, results[0] as StepResult);
        const r0 = results[0] as StepResult;
        expect(JSON.stringify(again.frames[1]?.step)).toBe(
          JSON.stringify(spread(step, r0, actionReward(false, true, 0, ep.rewards))),
        );
        const own = { ...out.step, note: 'kept' } as ConstructionStep;
        const mine = recordResult(
          { ...ep, frames: [ep.frames[0], { ...ep.frames[1], step: own }] } as Episode,
          1,
          r,
        );
        expect(JSON.stringify(mine.frames[1]?.step)).toBe(JSON.stringify(spread(own, r, reward)));
      }
    } finally {
      net.dispose();
    }
  });
});
