import { describe, expect, it } from 'vitest';
import { TraceSchema, type Task } from '../core/trace.ts';
import { generateTask, taskOfMasbench } from '../masbench/index.ts';
import { deleteIndex, exitIndex } from './actions.ts';
import { checkConstruction } from './check.ts';
import { SUMMARIZER_ID } from './construction.ts';
import { encodeTask } from './encoder.ts';
import {
  construct,
  currentFrame,
  currentState,
  episodeDone,
  episodeSteps,
  episodeTrace,
  recordResult,
  redoStep,
  runFrame,
  startEpisode,
  stepSettings,
  takeStep,
  undoStep,
  type Episode,
} from './episode.ts';
import { PolicyNetwork, randomCheckpoint } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_ACTION_REWARD } from './rewards.ts';
import { DEFAULT_POOL } from './roles.ts';
import { stepPolicyOf } from './sample.ts';
import type { IntermediateRunner, StepChoice } from './step-types.ts';

const pool = DEFAULT_POOL;
const SOLVER = pool.roles.findIndex((r) => r.name === 'Solver');
const VERIFIER = pool.roles.findIndex((r) => r.name === 'Verifier');
const task: Task = taskOfMasbench(generateTask({ axis: 'depth', value: 5, seed: 2 }));
const CREATED = '2026-03-04T05:06:07.000Z';

async function setup(executes = false) {
  const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
  const cfg = net.checkpoint.config;
  const policy = stepPolicyOf(net);
  const enc = encodeTask(task.query, cfg.hashDim);
  const ep = startEpisode({
    task,
    policyName: net.name,
    backend: net.backend,
    seed: 11,
    executes,
    createdAt: CREATED,
    pool,
    limits: { maxAgents: cfg.maxAgents, maxSteps: cfg.maxSteps },
  });
  /** One step from the current frame, as every driver takes it. */
  const step = async <E extends Episode>(e: E, choice: StepChoice = {}, greedy = false): Promise<E> =>
    takeStep(e, await policy.step(enc, currentState(e), stepSettings(e, greedy), choice));
  return { net, policy, enc, ep, step };
}

describe('construction episode', () => {
  it('starts with the empty MAS: one frame, counted wrong, nothing taken', async () => {
    const { ep } = await setup();
    expect(ep.frames).toHaveLength(1);
    expect(ep.cursor).toBe(0);
    expect(currentFrame(ep)).toMatchObject({ step: null, correct: false, design: null, pending: false });
    expect(episodeSteps(ep)).toEqual([]);
    expect(episodeDone(ep)).toBe(false);
    expect(() =>
      startEpisode({
        task,
        policyName: 'p',
        backend: 'cpu',
        seed: 0,
        temperature: 0,
        pool,
        limits: currentState(ep).limits,
      }),
    ).toThrow(/temperature/);
  });

  it('takes steps: each frame holds its state, step and design; pending only while executing', async () => {
    const { ep, step } = await setup();
    const one = await step(ep, { action: SOLVER });
    expect(one.cursor).toBe(1);
    expect(ep.cursor).toBe(0);
    expect(currentFrame(one).step).toMatchObject({
      index: 0,
      chooser: 'user',
      action: { kind: 'add', role: 'Solver' },
    });
    expect(currentFrame(one).design?.agents.map((a) => a.id)).toEqual(['solver-1']);
    expect(currentFrame(one).pending).toBe(false);
    const executing = await setup(true);
    expect(currentFrame(await executing.step(executing.ep)).pending).toBe(true);
    // An outcome computed from another state is refused.
    const stale = await executing.policy.step(executing.enc, currentState(one), stepSettings(one), {});
    expect(() => takeStep(ep, stale)).toThrow(/does not follow/);
  });

  it('undoes and redoes by moving the cursor; a new step after undo drops the redo branch', async () => {
    const { ep, step } = await setup();
    const two = await step(await step(ep, { action: SOLVER }), { action: VERIFIER });
    const back = undoStep(two);
    expect(back.cursor).toBe(1);
    expect(back.frames).toHaveLength(3);
    expect(episodeSteps(back)).toHaveLength(1);
    expect(undoStep(undoStep(back)).cursor).toBe(0);
    expect(redoStep(two)).toBe(two);
    expect(currentState(redoStep(back))).toBe(currentState(two));
    const branched = await step(back, { action: deleteIndex(pool) });
    expect(branched.frames).toHaveLength(3);
    expect(currentFrame(branched).step?.action.kind).toBe('delete');
    expect(redoStep(branched)).toBe(branched);
  });

  it('an undone step does not shift the draws of later steps', async () => {
    const { net, ep, step } = await setup();
    // Sampled step, undone, replaced by a user's choice, then sampled steps until EXIT.
    let e = undoStep(await step(ep));
    e = await step(e, { action: VERIFIER });
    while (!episodeDone(e)) e = await step(e);
    const direct = await construct({
      policy: net,
      pool,
      task,
      seed: 11,
      createdAt: CREATED,
      choose: (i) => (i === 0 ? { action: VERIFIER } : undefined),
    });
    expect(episodeTrace(e)).toEqual(direct.trace);
  });

  it('records a result: answer into the state, correctness, run record and the action reward', async () => {
    const { ep, step } = await setup(true);
    const one = await step(ep, { action: SOLVER });
    const design = currentFrame(one).design;
    const right = recordResult(one, 1, {
      answer: '\\boxed{7}',
      correct: true,
      run: {
        backend: 'simulated',
        status: 'completed',
        calls: 1,
        cachedCalls: 0,
        promptTokens: 9,
        completionTokens: 3,
        costUsd: 0,
      },
    });
    const f = currentFrame(right);
    expect(f).toMatchObject({ correct: true, pending: false });
    // The design keeps its identity, so views keyed on it do not redraw for an answer.
    expect(f.design).toBe(design);
    expect(f.state.results).toEqual([{ step: 0, answer: '\\boxed{7}', correct: true }]);
    expect(f.step).toMatchObject({
      intermediateAnswer: '\\boxed{7}',
      intermediateCorrect: true,
      actionReward: DEFAULT_ACTION_REWARD.gain,
      intermediateRun: { backend: 'simulated', calls: 1 },
    });
    // right → right earns the decaying bonus at t = 1; right → unknown earns nothing.
    const two = await step(right, { action: VERIFIER });
    expect(currentFrame(recordResult(two, 2, { answer: '7', correct: true })).step?.actionReward).toBeCloseTo(
      DEFAULT_ACTION_REWARD.bonus * DEFAULT_ACTION_REWARD.bonusDecay,
      12,
    );
    expect(currentFrame(recordResult(two, 2, { answer: null, correct: null })).step?.actionReward).toBeNull();
    expect(recordResult(right, 0, { answer: 'x', correct: true })).toBe(right);
  });

  it('runs the current frame with the runner, and nothing for a MAS without agents', async () => {
    const { ep, step } = await setup(true);
    const seen: string[][] = [];
    const runner: IntermediateRunner = (d) => {
      seen.push(d.agents.map((a) => a.id));
      return Promise.resolve({ answer: 'a', correct: false });
    };
    const one = await step(ep, { action: SOLVER });
    expect(await runFrame(one, 1, runner)).toEqual({ answer: 'a', correct: false });
    const empty = await step(one, { action: deleteIndex(pool) });
    expect(await runFrame(empty, 2, runner)).toEqual({ answer: null, correct: null });
    expect(seen).toEqual([['solver-1']]);
  });

  it('turns into one trace: designer, title, id from the inputs, only the steps taken', async () => {
    const { ep, step, policy, enc } = await setup(true);
    let e = await step(ep, { action: SOLVER });
    e = recordResult(e, 1, { answer: '1', correct: false });
    e = await step(e, { action: VERIFIER, links: ['solver-1'] });
    e = recordResult(e, 2, { answer: '1', correct: false });
    const t = episodeTrace(e);
    expect(TraceSchema.safeParse(t).success).toBe(true);
    expect(checkConstruction(t)).toEqual([]);
    expect(t.title).toBe('MASBench depth 5 (seed 2) · prior construction');
    expect(t.createdAt).toBe(CREATED);
    expect(t.tags).toEqual(['construction']);
    expect(t.designer).toEqual({
      kind: 'policy',
      checkpoint: 'prior',
      backend: 'cpu',
      seed: 11,
      roles: pool.version,
      rewards: DEFAULT_ACTION_REWARD,
    });
    expect(t.construction.map((s) => s.index)).toEqual([0, 1]);
    // Before EXIT the partial design has one sink, so no summariser.
    expect(t.design.agents.map((a) => a.id)).toEqual(['solver-1', 'verifier-2']);
    expect(episodeTrace(e)).toEqual(t);
    // Another path to the same length is another trace; the undone step is not in it.
    const other = await step(undoStep(e), { action: SOLVER });
    expect(episodeTrace(other).id).not.toBe(t.id);
    expect(episodeTrace(undoStep(e)).construction).toHaveLength(1);
    expect(episodeTrace({ ...e, executes: false }).designer).not.toHaveProperty('rewards');
    const exit = await policy.step(enc, currentState(e), stepSettings(e), { action: exitIndex(pool) });
    const done = takeStep(e, exit);
    expect(episodeTrace(done).design.agents.at(-1)?.id).toBe(SUMMARIZER_ID);
    expect(() => takeStep(done, { ...exit, step: { ...exit.step, index: exit.step.index + 1 } })).toThrow(
      /ended/,
    );
  });

  it('construct drives the same episode: same seed and choices, same trace, with results', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 8));
    const runner: IntermediateRunner = (d) =>
      Promise.resolve({ answer: String(d.agents.length), correct: d.agents.length % 2 === 0 });
    const choose = (i: number): StepChoice | undefined => (i === 1 ? { action: SOLVER } : undefined);
    const c = await construct({ policy: net, pool, task, seed: 3, runner, choose, createdAt: CREATED });
    const policy = stepPolicyOf(net);
    const enc = encodeTask(task.query, net.checkpoint.config.hashDim);
    let e = startEpisode({
      task,
      policyName: net.name,
      backend: net.backend,
      seed: 3,
      executes: true,
      createdAt: CREATED,
      pool,
      limits: { maxAgents: net.checkpoint.config.maxAgents, maxSteps: net.checkpoint.config.maxSteps },
    });
    while (!episodeDone(e)) {
      const s = currentState(e);
      e = takeStep(e, await policy.step(enc, s, stepSettings(e), choose(s.step) ?? {}));
      e = recordResult(e, e.cursor, await runFrame(e, e.cursor, runner));
    }
    expect(episodeTrace(e)).toEqual(c.trace);
    expect(c.episode.frames.map((f) => f.correct)).toEqual(e.frames.map((f) => f.correct));
    expect(c.steps.every((s) => s.intermediateAnswer !== undefined)).toBe(true);
    expect(c.steps[1]?.chooser).toBe('user');
  });
});
