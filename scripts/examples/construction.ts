/**
 * The MasHost construction example, produced by the code it illustrates rather than written by
 * hand: the built-in `prior` checkpoint builds a MAS for a generated MASBench task (greedily: its
 * most probable action at every step, so the example shows what the prior prefers, while each
 * step's distribution shows what sampling would explore), every partial
 * MAS runs on the simulator for its intermediate answer (graded by the executor with the answer
 * checker), the action-wise rewards come from `src/policy/rewards.ts`, and the final design runs on
 * the simulator with its modelled latencies on a virtual clock. Nothing in it is typed in, so its
 * answers, correctness, rewards and log-probabilities cannot disagree with the code.
 */
import { minimalTrace } from '../../src/core/trace-builders.ts';
import type { Trace } from '../../src/core/trace.ts';
import { runDesign } from '../../src/executor/run.ts';
import { simulatedBackend } from '../../src/executor/sim/index.ts';
import { generateTask, taskOfMasbench, type Axis } from '../../src/masbench/index.ts';
import { PolicyNetwork } from '../../src/policy/network.ts';
import { priorCheckpoint } from '../../src/policy/prior.ts';
import { DEFAULT_POOL } from '../../src/policy/roles.ts';
import { construct } from '../../src/policy/episode.ts';
import { virtualClock } from './virtual-clock.ts';

/** The task, the construction's sampling seed and the simulator's seed. */
export const CONSTRUCTION_EXAMPLE = {
  axis: 'depth' as Axis,
  value: 4,
  taskSeed: 7,
  seed: 7,
  createdAt: '2026-11-21T16:45:00.000Z',
};

export async function constructionExample(): Promise<Trace> {
  const e = CONSTRUCTION_EXAMPLE;
  const mb = generateTask({ axis: e.axis, value: e.value, seed: e.taskSeed });
  const task = taskOfMasbench(mb);
  const policy = await PolicyNetwork.cpu(priorCheckpoint(DEFAULT_POOL));
  const built = await construct({
    policy,
    pool: DEFAULT_POOL,
    task,
    seed: e.seed,
    greedy: true,
    createdAt: e.createdAt,
    runner: async (design, t) => {
      const run = await runDesign({
        trace: minimalTrace({ query: t.query }),
        design,
        task: t,
        backend: simulatedBackend(mb, e.seed),
        startedAt: e.createdAt,
      });
      return { answer: run.result.finalAnswer, correct: run.result.correct };
    },
  });
  const clock = virtualClock();
  const trace = await clock.drive(() =>
    runDesign({
      trace: built.trace,
      backend: simulatedBackend(mb, e.seed, { timeScale: 1, sleep: clock.sleep }),
      now: clock.now,
      startedAt: e.createdAt,
    }),
  );
  return {
    ...trace,
    id: 'example-mashost-construction',
    title: `MasHost construction: the prior's greedy steps on MASBench ${e.axis} ${e.value} (simulated run)`,
    // The gallery card and the trace header show the result as a badge; no tag repeats it.
    tags: [...trace.tags, 'mashost'],
  };
}
