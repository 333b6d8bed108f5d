import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actionReward, DEFAULT_ACTION_REWARD } from '../../policy/index.ts';
import { memoryCheckpoints } from '../services/policy-checkpoints.ts';
import { memoryRecents } from '../services/recents.ts';
import { memoryRolePools } from '../services/roles.ts';
import { resetBaton, useBaton } from '../store.ts';
import { currentFrame, stepsOf } from '../construction.ts';
import { configureBuild, type BuildEnv } from './build.ts';
import { episodeReward, rewardFormula, stepRewards, TRAIN_DEFAULTS } from './build-reward.ts';
import { configureLibrary, type LibraryEnv } from './library.ts';

/** The Build page's pick (kept links, the pending state), step labels and reward read-out. */

const s = () => useBaton.getState();
const session = () => {
  const x = s().buildSession;
  if (!x) throw new Error('no session');
  return x;
};

let previousBuild: BuildEnv;
let previousLibrary: LibraryEnv;
beforeAll(() => {
  previousBuild = configureBuild({
    storage: memoryCheckpoints(),
    pools: memoryRolePools(),
    prefer: 'cpu',
    now: () => new Date('2026-11-22T05:00:00Z'),
    schedule: (fn) => {
      const t = setTimeout(fn, 0);
      return () => clearTimeout(t);
    },
  });
  previousLibrary = configureLibrary({ storage: memoryRecents() });
});
afterAll(() => {
  configureBuild(previousBuild);
  configureLibrary(previousLibrary);
});
beforeEach(() => resetBaton());

async function start(form: Parameters<ReturnType<typeof s>['setBuildForm']>[0] = {}): Promise<void> {
  s().setBuildForm({
    source: 'masbench',
    axis: 'depth',
    value: 4,
    taskSeed: 3,
    seed: 7,
    temperature: 1,
    ...form,
  });
  await s().startBuild();
  expect(s().buildProblems).toEqual([]);
}

describe('picking the next step', () => {
  it('keeps links toggled before a role bar is clicked, and commits them on Step', async () => {
    await start({ execute: 'off' });
    await s().buildStep();
    await s().buildStep();
    const p = s().buildPreview;
    const target = p?.edges[0]?.from as string;
    const wasLinked = p?.sampledLinks.includes(target) ?? false;
    s().toggleBuildLink(target);
    const toggled = s().buildPick.links;
    expect(toggled).not.toBeNull();
    // Another role: the links stay (every role's candidates are the same agents).
    const other = (p?.role ?? 0) === 0 ? 1 : 0;
    await s().pickBuildAction(other);
    expect(s().buildPick).toEqual({ action: other, links: toggled });
    // The same bar again unpicks the role, not the links.
    await s().pickBuildAction(other);
    expect(s().buildPick).toEqual({ action: null, links: toggled });
    await s().pickBuildAction(other);
    await s().buildStep();
    const step = stepsOf(session())[2];
    expect(step?.chooser).toBe('user');
    expect(step?.action.kind === 'add' && step.action.links.includes(target)).toBe(!wasLinked);
    // Esc (pickBuildAction(null)) clears the whole pick.
    s().toggleBuildLink(target);
    await s().pickBuildAction(null);
    expect(s().buildPick).toEqual({ action: null, links: null });
  });

  it('labels steps sampled, greedy, or the user’s', async () => {
    await start({ execute: 'off' });
    await s().buildStep();
    await s().buildStep({ greedy: true });
    await s().pickBuildAction(0);
    await s().buildStep();
    const steps = stepsOf(session());
    expect(steps.map((x, k) => [x.chooser, s().buildDecodings[k]])).toEqual([
      ['policy', 'sampled'],
      ['policy', 'greedy'],
      ['user', 'sampled'],
    ]);
    // Undo, then a greedy step in place of the last one: the labels follow the steps.
    await s().undoBuild();
    await s().buildStep({ greedy: true });
    expect(s().buildDecodings).toEqual(['sampled', 'greedy', 'greedy']);
    // The trace keeps exactly the steps `baton construct` writes (no extra field).
    expect(Object.keys(steps[0] ?? {})).not.toContain('decoding');
  });
});

describe('the reward read-out', () => {
  it('splits r_t into its case with the real numbers on the simulator', async () => {
    await start({ execute: 'simulator' });
    for (let k = 0; k < 5 && !currentFrame(session()).state.exited; k++) await s().buildStep();
    const rs = stepRewards(session());
    expect(rs.length).toBe(session().cursor);
    let prev: boolean | null = false;
    session()
      .frames.slice(1)
      .forEach((f, k) => {
        const r = rs[k];
        const expected = actionReward(prev, f.correct, k, DEFAULT_ACTION_REWARD);
        expect(r?.value).toBe(expected);
        if (expected !== null) {
          expect(r?.why).toBeNull();
          expect(r?.formula).toBe(
            rewardFormula(prev as boolean, f.correct as boolean, k, DEFAULT_ACTION_REWARD),
          );
          if (expected !== 0)
            expect(r?.formula).toContain(`${expected > 0 ? '+' : '−'}${Math.abs(expected).toFixed(3)}`);
        } else expect(r?.why).toMatch(/no answer|not graded|was not graded/);
        prev = f.correct;
      });
    const R = episodeReward(session());
    const frame = currentFrame(session());
    if (frame.correct !== null) {
      const run = frame.step?.intermediateRun;
      const tokens = (run?.promptTokens ?? 0) + (run?.completionTokens ?? 0);
      expect(R.value).toBeCloseTo(
        (frame.correct ? 1 : 0) - TRAIN_DEFAULTS.lambda * Math.min(1, tokens / TRAIN_DEFAULTS.costScale),
        12,
      );
      expect(R.formula).toContain(`min(1, ${tokens}/${TRAIN_DEFAULTS.costScale})`);
    }
  });

  it('says why r is n/a: not executed, or no ground truth', async () => {
    await start({ execute: 'off' });
    await s().buildStep();
    expect(stepRewards(session())[0]).toMatchObject({ value: null, formula: null });
    expect(stepRewards(session())[0]?.why).toMatch(/^not run: this construction does not execute/);
    expect(episodeReward(session()).why).toMatch(/^not run/);

    resetBaton();
    await start({ execute: 'simulator' });
    await s().buildStep();
    // The same executed step, had the task no ground truth (an own query without an expected answer).
    const ungraded = {
      ...session(),
      task: { ...session().task, groundTruth: null },
      frames: session().frames.map((f) =>
        f.step
          ? { ...f, correct: null, step: { ...f.step, intermediateCorrect: null, actionReward: null } }
          : f,
      ),
    };
    expect(stepRewards(ungraded)[0]?.why).toMatch(/^no ground truth: the answers are shown but not graded/);
    expect(episodeReward(ungraded).why).toMatch(/^no ground truth/);
  });

  it('writes each case of the table with its numbers', () => {
    const c = DEFAULT_ACTION_REWARD;
    expect(rewardFormula(false, true, 0, c)).toBe('+gain = +1.000');
    expect(rewardFormula(true, false, 1, c)).toBe('−loss = −1.000');
    expect(rewardFormula(true, true, 2, c)).toBe('+bonus · bonusDecay^t = 0.50 · 0.70^2 = +0.245');
    expect(rewardFormula(false, false, 1, c)).toBe('0: t = 1 < T = 3, wrong → wrong is exempt');
    expect(rewardFormula(false, false, 4, c)).toBe(
      '−min(penaltyMax, penaltyRate · (t − T + 1)) = −min(1.00, 0.10 · 2) = −0.200',
    );
  });
});
