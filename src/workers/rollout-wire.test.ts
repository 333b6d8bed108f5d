/**
 * A rollout worker's answer in columns (rollout-wire.ts): what the sampler made comes back equal,
 * every field of every step, optional fields and nulls included; and each way a worker can answer
 * wrong is refused with its reason, whatever else the answer holds.
 */
import { describe, expect, it } from 'vitest';
import type { ConstructionStep } from '../core/trace.ts';
import {
  BatchedPolicy,
  DEFAULT_POOL,
  actionNames,
  applyAction,
  initialState,
  priorCheckpoint,
  toValidDesign,
  type PolicyAction,
} from '../policy/index.ts';
import { PRESET_TABLE, drawTasks, rolloutMany, trainConfig, type Rollout } from '../train/index.ts';
import { WireBlockSchema, type WireBlock } from './rollout.methods.ts';
import { encodeRollouts, rolloutsFromWire } from './rollout-wire.ts';
import { simulatedSampling } from './stand-in-workers.ts';

const cp = priorCheckpoint(DEFAULT_POOL);
const config = trainConfig({ preset: 'mixed', seed: 5 });
const on = { pool: DEFAULT_POOL, checkpoint: cp, maxSteps: config.maxSteps };
const tasks = drawTasks(PRESET_TABLE.mixed, 3, 3, 'train');
const episodes = tasks.flatMap((task, i) => [0, 1, 2].map((g) => ({ task, seed: 10 * i + g })));
const names = actionNames(DEFAULT_POOL);
const limits = { maxAgents: cp.config.maxAgents, maxSteps: Math.min(config.maxSteps, cp.config.maxSteps) };

async function sampled(): Promise<Rollout[]> {
  const policy = BatchedPolicy.create(
    cp,
    { backend: 'cpu', reason: 'test', adapter: null, ctx: null },
    { maxBatch: 9 },
  );
  try {
    return await rolloutMany({ ...simulatedSampling(config), policy, episodes });
  } finally {
    policy.dispose();
  }
}

/**
 * A construction no sampler run here makes: a user's choices, a DELETE, an EXIT, a step that was
 * not run, a remote run that failed with a problem, a null answer, log-probability and reward.
 */
function unusual(): Rollout {
  const actions: PolicyAction[] = [
    { kind: 'add', role: 0, links: [] },
    { kind: 'add', role: 2, links: [] },
    { kind: 'delete' },
    { kind: 'add', role: 3, links: [] },
    { kind: 'exit' },
  ];
  let s = initialState(DEFAULT_POOL, limits);
  const steps: ConstructionStep[] = [];
  for (const [k, a0] of actions.entries()) {
    // The fourth step links the first agent, the one before it.
    const a: PolicyAction = a0.kind === 'add' && k === 3 ? { ...a0, links: [s.agents[0]?.id as string] } : a0;
    const applied = applyAction(s, a);
    const uniform = 1 / names.length;
    const step: ConstructionStep = {
      index: k,
      action: applied.record,
      roleDistribution: names.map((action) => ({ action, p: uniform })),
      edgeProbabilities:
        a.kind === 'add' ? s.agents.map((x, j) => ({ from: x.id, p: j === 0 ? 1 : 0.25 })) : [],
      logProb: k === 1 ? null : -0.5 * (k + 1),
      chooser: k < 2 ? 'user' : 'policy',
    };
    if (k === 1) {
      step.intermediateAnswer = null;
      step.intermediateCorrect = null;
      step.intermediateRun = {
        backend: 'remote',
        status: 'failed',
        calls: 2,
        cachedCalls: 1,
        promptTokens: 30,
        completionTokens: 0,
        costUsd: 0.0125,
        problem: 'HTTP 429: rate limited',
      };
      step.actionReward = null;
    } else if (k === 3) {
      step.intermediateAnswer = '42';
      step.intermediateCorrect = true;
      step.actionReward = 0.25;
    }
    steps.push(step);
    s = applied.state;
  }
  const design = toValidDesign(s);
  if (!design) throw new Error('the fixture ends without agents');
  return {
    task: tasks[0] as Rollout['task'],
    steps,
    design,
    agents: design.agents.length,
    edges: design.edges.length,
    correct: null,
    tokens: 0,
    intermediate: [null, null, false, true, null],
  };
}

const drop = ({ states: _s, ...r }: Rollout) => r;

describe('rollouts in columns', () => {
  it('come back as the sampler made them, states replayed', async () => {
    const want = await sampled();
    expect(want.flatMap((r) => r.steps).filter((s) => s.intermediateRun).length).toBeGreaterThan(9);
    const wire = WireBlockSchema.parse(structuredClone(encodeRollouts(want, DEFAULT_POOL)));
    const got = rolloutsFromWire(wire, episodes, on);
    if (typeof got === 'string') throw new Error(got);
    expect(got.map(drop)).toEqual(want.map(drop));
    expect(got.map((r) => r.states?.map((s) => [s.step, s.agents.length, s.results.length]))).toEqual(
      want.map((r) => r.states?.map((s) => [s.step, s.agents.length, s.results.length])),
    );
    // Texts cross once each: the simulator's refusals repeat.
    const answers = want.flatMap((r) => r.steps).filter((s) => typeof s.intermediateAnswer === 'string');
    expect(wire.texts.length).toBeLessThan(answers.length);
  }, 60_000);

  it('keep what the sampler here does not make: user choices, DELETE, EXIT, nulls, a failed remote run', () => {
    const r = unusual();
    const got = rolloutsFromWire(encodeRollouts([r], DEFAULT_POOL), [episodes[0] as never], on);
    if (typeof got === 'string') throw new Error(got);
    expect(got.map(drop)).toEqual([drop(r)]);
    expect(got[0]?.steps.map((s) => Object.keys(s))).toEqual(r.steps.map((s) => Object.keys(s)));
    expect(got[0]?.steps[3]?.action).toMatchObject({
      kind: 'add',
      links: [r.steps[0]?.action.kind === 'add' ? r.steps[0].action.agentId : ''],
    });
  });

  it('refuse what a worker can get wrong, each with its reason', () => {
    const block = [episodes[0] as never];
    const good = (): WireBlock => encodeRollouts([unusual()], DEFAULT_POOL);
    const A = names.length;
    const cases: [string, (w: WireBlock) => WireBlock, RegExp][] = [
      [
        'a block of the wrong size',
        (w) => ({ ...w, counts: new Uint8Array([5, 1]) }),
        /answered 2 constructions for a block of 1/,
      ],
      ['a column of the wrong length', (w) => ({ ...w, user: new Uint8Array(4) }), /do not hold 5 steps/],
      ['an action past the last', (w) => ((w.col[0] = A), w), /takes action 12 of 12/],
      ['a link to no agent', (w) => ((w.links[0] = 7), w), /links an agent that is not there/],
      [
        'links on a DELETE',
        (w) => ({ ...w, linkCounts: Uint8Array.from([0, 0, 1, 1, 0]), links: new Uint16Array(2) }),
        /has links but adds no agent/,
      ],
      ['a probability above 1', (w) => ((w.roleP[3] = 1.5), w), /action probability outside/],
      ['a NaN probability', (w) => ((w.roleP[0] = Number.NaN), w), /action probability outside/],
      ['a NaN edge probability', (w) => ((w.edgeP[0] = Number.NaN), w), /edge probability outside/],
      [
        'an edge probability too many',
        (w) => ({ ...w, edgeP: new Float64Array(w.edgeP.length + 1) }),
        /sent 3 edge probabilities for 2/,
      ],
      [
        'too few edge probabilities',
        (w) => ({ ...w, edgeP: new Float64Array(1) }),
        /lacks edge probabilities/,
      ],
      ['a log-probability above 0', (w) => ((w.logProb[0] = 0.5), w), /log-probability above 0/],
      ['an answer text not sent', (w) => ((w.answer[3] = 9), w), /answer text that was not sent/],
      ['an unknown run status', (w) => ((w.runCode[1] = 9), w), /unknown run status/],
      ['a negative run cost', (w) => ((w.run[1 * 5 + 4] = -1), w), /run costUsd that is not a number/],
      ['a NaN reward', (w) => ((w.reward[3] = Number.NaN), w), /reward that is not finite/],
      ['a bad intermediate result', (w) => ((w.intermediate[0] = 4), w), /no valid intermediate result/],
      ['a bad final outcome', (w) => ((w.tokens[0] = -3), w), /has no valid outcome/],
      [
        'more steps than the limit',
        () => {
          const r = unusual();
          const steps = [...r.steps, ...r.steps, ...r.steps];
          return encodeRollouts([{ ...r, steps, intermediate: steps.map(() => null) }], DEFAULT_POOL);
        },
        new RegExp(`has 15 steps, more than ${limits.maxSteps}`),
      ],
      ['an EXIT first', (w) => ((w.col[0] = A - 1), w), /step 0 does not replay|ended without agents/],
    ];
    for (const [what, spoil, why] of cases) {
      const got = rolloutsFromWire(spoil(good()), block, on);
      expect(typeof got === 'string' ? got : 'accepted', what).toMatch(why);
    }
    expect(rolloutsFromWire(good(), block, on)).not.toBeTypeOf('string');
  });

  it('the schema refuses columns that are not typed arrays of their kind', () => {
    const w = encodeRollouts([unusual()], DEFAULT_POOL);
    expect(WireBlockSchema.safeParse(w).success).toBe(true);
    expect(WireBlockSchema.safeParse({ ...w, roleP: [...w.roleP] }).success).toBe(false);
    expect(WireBlockSchema.safeParse({ ...w, col: new Uint32Array(w.col) }).success).toBe(false);
    expect(WireBlockSchema.safeParse({ ...w, texts: [3] }).success).toBe(false);
    expect(WireBlockSchema.safeParse({ ...w, counts: new Uint8Array(16_385) }).success).toBe(false);
  });

  it('a worker refuses to encode a step outside its pool', () => {
    const r = unusual();
    const step = r.steps[0] as ConstructionStep;
    const foreign = {
      ...r,
      steps: [{ ...step, action: { ...step.action, role: 'Nobody' } } as ConstructionStep],
    };
    expect(() => encodeRollouts([{ ...foreign, intermediate: [null] }], DEFAULT_POOL)).toThrow(
      /"Nobody" is not in the pool/,
    );
    const shuffled = {
      ...r,
      steps: [{ ...step, roleDistribution: [...step.roleDistribution].reverse() }],
      intermediate: [null],
    };
    expect(() => encodeRollouts([shuffled], DEFAULT_POOL)).toThrow(/not over the pool's actions in order/);
  });
});
