import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TraceSchema } from '../../core/trace.ts';
import {
  checkConstruction,
  recomputeLogProb,
  DEFAULT_ACTION_REWARD,
  DEFAULT_POOL,
  ROLE_POOL_VERSION,
} from '../../policy/index.ts';
import { startOpenAIServer, type OpenAIServer } from '../../../tests/server/openai-server.ts';
import { configureKeys, memoryKeyStore } from '../services/keys.ts';
import { checkpointFromText, memoryCheckpoints } from '../services/policy-checkpoints.ts';
import { memoryRecents } from '../services/recents.ts';
import { memoryRolePools } from '../services/roles.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureLibrary, type LibraryEnv } from './library.ts';
import { currentFrame, sessionTrace, stepsOf } from '../construction.ts';
import { configureBuild, type BuildEnv } from './build.ts';

const s = () => useBaton.getState();
const session = () => {
  const x = s().buildSession;
  if (!x) throw new Error('no session');
  return x;
};

let previousBuild: BuildEnv;
let previousLibrary: LibraryEnv;
const recents = memoryRecents();
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
  previousLibrary = configureLibrary({ storage: recents });
});
afterAll(() => {
  configureBuild(previousBuild);
  configureLibrary(previousLibrary);
});

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

describe('build slice', () => {
  beforeEach(() => {
    resetBaton();
  });

  it('opens an empty construction with a preview that sums to 1 and masks DELETE/EXIT', async () => {
    await start();
    const p = s().buildPreview;
    expect(p).not.toBeNull();
    const sum = (p?.distribution ?? []).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(1, 9);
    const n = p?.mask.length ?? 0;
    // Empty MAS: DELETE and EXIT need an agent.
    expect(p?.mask[n - 2]).toBe(0);
    expect(p?.mask[n - 1]).toBe(0);
    expect(p?.distribution[n - 1]).toBe(0);
    expect(session().backend).toBe('cpu');
    expect(session().task.groundTruth).not.toBeNull();
  });

  it('records sampled steps as chooser policy, picks and toggled links as chooser user', async () => {
    await start();
    await s().buildStep();
    expect(stepsOf(session())).toHaveLength(1);
    expect(stepsOf(session())[0]?.chooser).toBe('policy');

    await s().pickBuildAction(2);
    expect(s().buildPick.action).toBe(2);
    await s().buildStep();
    const picked = stepsOf(session())[1];
    expect(picked?.chooser).toBe('user');
    expect(picked?.action.kind === 'add' && picked.action.role).toBe('Solver');

    // Toggling a link pins the previewed role and flips that link relative to the policy's draw.
    const prev = s().buildPreview;
    const target = prev?.edges[0]?.from as string;
    const wasLinked = prev?.sampledLinks.includes(target) ?? false;
    s().toggleBuildLink(target);
    expect(s().buildPick.action).toBe(prev?.role);
    await s().buildStep({ greedy: true });
    const toggled = stepsOf(session())[2];
    expect(toggled?.chooser).toBe('user');
    expect(toggled?.action.kind === 'add' && toggled.action.links.includes(target)).toBe(!wasLinked);

    for (const step of stepsOf(session())) {
      expect(step.logProb).not.toBeNull();
      expect(recomputeLogProb(step)).toBeCloseTo(step.logProb as number, 9);
    }
  });

  it('undoes and redoes steps, and a new step after undo drops the redo branch', async () => {
    await start();
    await s().buildStep();
    await s().buildStep();
    const two = currentFrame(session()).state;
    await s().undoBuild();
    expect(session().cursor).toBe(1);
    expect(stepsOf(session())).toHaveLength(1);
    expect(currentFrame(session()).state.agents.length).toBeLessThanOrEqual(two.agents.length);
    await s().redoBuild();
    expect(currentFrame(session()).state).toBe(two);
    await s().undoBuild();
    await s().undoBuild();
    expect(session().cursor).toBe(0);
    await s().undoBuild();
    expect(session().cursor).toBe(0);
    await s().buildStep({ greedy: true });
    expect(session().frames).toHaveLength(2);
    expect(session().cursor).toBe(1);
  });

  it('replays the same sampled steps for the same seed (draws do not depend on overrides)', async () => {
    await start();
    await s().buildStep();
    await s().buildStep();
    const a = stepsOf(session()).map((x) => JSON.stringify(x.action));
    await start();
    await s().buildStep();
    await s().buildStep();
    expect(stepsOf(session()).map((x) => JSON.stringify(x.action))).toEqual(a);
  });

  it('executes each partial MAS on the simulator and records answers and action rewards', async () => {
    await start();
    await s().buildStep({ greedy: true });
    await s().buildStep({ greedy: true });
    for (const f of session().frames.slice(1)) {
      expect(f.pending).toBe(false);
      expect(f.step?.intermediateCorrect).not.toBeUndefined();
      expect(typeof f.step?.actionReward === 'number' || f.step?.actionReward === null).toBe(true);
    }
  });

  it('deletes, exits, and runs the finished design into a consistent, simulated trace', async () => {
    await start();
    await s().buildStep({ greedy: true });
    await s().buildStep({ greedy: true });
    const before = currentFrame(session()).state.agents.length;
    await s().buildDelete();
    expect(currentFrame(session()).state.agents.length).toBe(before - 1);
    expect(stepsOf(session()).at(-1)?.chooser).toBe('user');
    await s().buildExit();
    expect(currentFrame(session()).state.exited).toBe(true);
    expect(s().buildPreview).toBeNull();
    await s().buildStep();
    expect(stepsOf(session())).toHaveLength(4);

    const id = await s().runBuild();
    expect(id).not.toBeNull();
    const trace = s().openTraces[id as string];
    expect(trace).toBeDefined();
    if (!trace) return;
    expect(TraceSchema.safeParse(trace).success).toBe(true);
    expect(trace.construction).toHaveLength(4);
    expect(trace.execution.backend.kind).toBe('simulated');
    expect(trace.result.finalAnswer).not.toBeNull();
    expect(checkConstruction(trace)).toEqual([]);
    expect(s().recents[0]?.id).toBe(id);
  });

  it('builds for a custom query without executing steps', async () => {
    await start({ source: 'custom', query: 'Which is larger, 2^10 or 10^3?', execute: 'off' });
    await s().buildStep({ greedy: true });
    const f = currentFrame(session());
    expect(f.pending).toBe(false);
    expect(f.step?.intermediateCorrect).toBeUndefined();
    const t = sessionTrace(session());
    expect(t.task.source.kind).toBe('custom');
    expect(checkConstruction(t)).toEqual([]);
  });

  it('refuses an empty query and a non-positive temperature with a problem', async () => {
    s().setBuildForm({ source: 'custom', query: '  ' });
    await s().startBuild();
    expect(s().buildProblems[0]?.code).toBe('E_TASK');
    s().setBuildForm({ source: 'masbench', temperature: 0 });
    await s().startBuild();
    expect(s().buildProblems[0]?.message).toMatch(/temperature/);
  });

  it('runs on the backend the form asks for, keeps the choice, and explains a missing WebGPU', async () => {
    const keys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
    const pinned = configureBuild({ prefer: null });
    try {
      // Node has no navigator.gpu: forcing WebGPU is refused with a reason, and nothing starts.
      s().setBuildForm({ compute: 'webgpu' });
      await s().startBuild();
      expect(s().buildSession).toBeNull();
      expect(s().buildProblems[0]?.code).toBe('E_POLICY_LOAD');
      expect(s().buildProblems[0]?.message).toMatch(/WebGPU was forced but no adapter is available/);

      await start({ compute: 'cpu' });
      expect(session().backend).toBe('cpu');
      expect(session().backendReason).toMatch(/forced/);

      // The choice is kept on this device and read back by a fresh store.
      resetBaton();
      expect(s().buildForm.compute).toBe('auto');
      await s().initBuild();
      expect(s().buildForm.compute).toBe('cpu');
    } finally {
      configureBuild({ prefer: pinned.prefer });
      configureKeys(keys);
    }
  });

  it('samples at a temperature: recorded distributions are the tempered ones', async () => {
    await start({ temperature: 2 });
    await s().buildStep();
    const step = stepsOf(session())[0];
    const sum = step?.roleDistribution.reduce((a, d) => a + d.p, 0) ?? 0;
    expect(sum).toBeCloseTo(1, 9);
    expect(recomputeLogProb(step!)).toBeCloseTo(step?.logProb as number, 9);
  });

  it('loads a checkpoint file, keeps it and selects it; rejects a broken one', async () => {
    const { randomCheckpoint } = await import('../../policy/index.ts');
    const { DEFAULT_POOL } = await import('../../policy/index.ts');
    const cp = { ...randomCheckpoint(DEFAULT_POOL, 5), name: 'my-trained' };
    const text = JSON.stringify(cp);
    await s().loadCheckpointFile({ name: 'cp.json', size: text.length, text: () => Promise.resolve(text) });
    expect(s().buildCheckpoints).toContain('my-trained');
    expect(s().buildForm.policy).toEqual({ kind: 'checkpoint', name: 'my-trained' });
    await start({ policy: { kind: 'checkpoint', name: 'my-trained' } });
    expect(session().policyName).toBe('my-trained');

    await s().loadCheckpointFile({ name: 'bad.json', size: 5, text: () => Promise.resolve('{"x"') });
    expect(s().buildProblems[0]?.code).toBe('E_POLICY_FILE');
  });

  it('auto-plays until EXIT and stops', async () => {
    await start();
    s().setBuildSpeed(0);
    s().setBuildAutoPlay(true);
    for (let i = 0; i < 400 && s().buildAutoPlay; i++) await new Promise((r) => setTimeout(r, 5));
    expect(s().buildAutoPlay).toBe(false);
    expect(currentFrame(session()).state.exited).toBe(true);
    expect(checkConstruction(sessionTrace(session()))).toEqual([]);
  });

  it('executes steps of an own query on a provider, with cached calls, graded answers and rewards', async () => {
    const server = await startOpenAIServer({ responder: () => 'Step by step. \\boxed{1024}' });
    const keys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
    try {
      const key = `sk-test-${Math.random().toString(36).slice(2)}`;
      s().selectProvider('custom');
      s().setBaseUrl(server.baseUrl);
      s().setModel('test-model');
      s().setApiKey(key, false);
      // A model without a price is refused under a dollar limit; this one is limited by tokens.
      s().setBudget({ totalUsd: null });
      await start({
        source: 'custom',
        query: 'Which is larger, 2^10 or 10^3? Give the larger value.',
        groundTruth: '1024',
        execute: 'provider',
        rewards: { ...DEFAULT_ACTION_REWARD, gain: 2 },
      });
      expect(session().execute).toBe('provider');
      await s().pickBuildAction(2);
      await s().buildStep();
      const first = currentFrame(session()).step;
      expect(first?.intermediateRun?.backend).toBe('remote');
      expect(first?.intermediateRun?.problem).toBeUndefined();
      expect(first?.intermediateRun?.status).toBe('completed');
      expect(first?.intermediateCorrect).toBe(true);
      // wrong (empty MAS) → right earns the configured gain.
      expect(first?.actionReward).toBe(2);
      const sentAfterFirst = chats(server);
      expect(first?.intermediateRun?.calls).toBe(sentAfterFirst);

      await s().pickBuildAction(5);
      await s().buildStep();
      const second = currentFrame(session()).step;
      expect(second?.intermediateRun?.cachedCalls).toBeGreaterThan(0);
      expect(chats(server) - sentAfterFirst).toBe(second?.intermediateRun?.calls);
      expect(session().spend?.calls).toBe(chats(server));

      await s().buildExit();
      const t = sessionTrace(session());
      expect(t.designer).toMatchObject({ kind: 'policy', rewards: { gain: 2 } });
      expect(checkConstruction(t)).toEqual([]);
      expect(TraceSchema.safeParse(t).success).toBe(true);
      const id = await s().runBuild('provider');
      expect(id).not.toBeNull();
      const stored = await recents.loadTrace(id as string);
      const ran = stored?.ok ? stored.value : fail();
      expect(ran.execution.backend).toMatchObject({ kind: 'remote', model: 'test-model' });
      expect(ran.execution.status).toBe('completed');
      expect(ran.result.correct).toBe(true);
      expect(ran.construction).toHaveLength(3);
      expect(JSON.stringify(ran)).not.toContain(key);
    } finally {
      configureKeys(keys);
      await server.close();
    }
  });

  it('refuses provider execution until Settings name a server and a model', async () => {
    s().selectProvider('custom');
    s().setBaseUrl('');
    s().setBuildForm({ source: 'custom', query: 'What is 2 + 2?', execute: 'provider' });
    await s().startBuild();
    expect(s().buildProblems[0]?.code).toBe('E_PROVIDER');
    expect(s().buildProblems[0]?.message).toMatch(/base URL/);
  });

  it('switches the simulator off for an own query, and can stop executing mid-construction', async () => {
    s().setBuildForm({ source: 'masbench', execute: 'simulator' });
    s().setBuildForm({ source: 'custom' });
    expect(s().buildForm.execute).toBe('off');
    await start({ source: 'masbench', execute: 'simulator' });
    await s().buildStep({ greedy: true });
    expect(currentFrame(session()).step?.intermediateRun?.backend).toBe('simulated');
    s().stopBuildExecution();
    expect(session().execute).toBe('off');
    await s().buildStep({ greedy: true });
    expect(currentFrame(session()).step?.intermediateRun).toBeUndefined();
  });

  it('rejects invalid reward constants before building', async () => {
    s().setBuildForm({ source: 'masbench', rewards: { ...DEFAULT_ACTION_REWARD, bonusDecay: 0 } });
    await s().startBuild();
    expect(s().buildProblems[0]?.message).toMatch(/bonusDecay/);
    expect(s().buildSession).toBeNull();
  });

  it('exports the selected checkpoint as a file and forgets stored ones', async () => {
    s().setBuildForm({ policy: { kind: 'random', seed: 9 } });
    const file = await s().exportBuildCheckpoint();
    expect(file?.name).toBe('random:9');
    const back = checkpointFromText(file?.text ?? '');
    expect(back.ok && back.value.name).toBe('random:9');
    const cp = { ...(back.ok ? back.value : fail()), name: 'kept' };
    const text = JSON.stringify(cp);
    await s().loadCheckpointFile({ name: 'k.json', size: text.length, text: () => Promise.resolve(text) });
    expect(s().buildCheckpoints).toContain('kept');
    await s().removeCheckpoint('kept');
    expect(s().buildCheckpoints).not.toContain('kept');
    expect(s().buildForm.policy).toEqual({ kind: 'prior' });
  });

  it('builds with an edited role pool: new prompts in the agents, its version in the trace', async () => {
    const edited = {
      ...DEFAULT_POOL,
      roles: DEFAULT_POOL.roles.map((r) =>
        r.name === 'Solver' ? { ...r, prompt: 'Solve it in the style of a careful accountant.' } : r,
      ),
    };
    await s().applyBuildPool(edited);
    const version = s().buildPool.version;
    expect(version).toMatch(/^baton\.roles\/1\+[0-9a-f]{8}$/);
    expect(s().buildPools.map((p) => p.version)).toContain(version);
    await start({ source: 'custom', query: 'What is 3 + 4?', execute: 'off' });
    await s().pickBuildAction(2);
    await s().buildStep();
    const t = sessionTrace(session());
    expect(t.designer).toMatchObject({ kind: 'policy', roles: version });
    expect(t.design.agents.find((a) => a.id.startsWith('solver'))?.description).toContain(
      'careful accountant',
    );

    await s().loadBuildPool(ROLE_POOL_VERSION);
    expect(s().buildPool.version).toBe(ROLE_POOL_VERSION);
    await s().loadBuildPool(version);
    expect(s().buildPool.roles[2]?.prompt).toContain('careful accountant');
  });

  it('a pool with another head shape: prior and random adapt, checkpoints for other roles are refused', async () => {
    const { randomCheckpoint } = await import('../../policy/index.ts');
    const cp = { ...randomCheckpoint(DEFAULT_POOL, 5), name: 'for-default' };
    const text = JSON.stringify(cp);
    await s().loadCheckpointFile({ name: 'cp.json', size: text.length, text: () => Promise.resolve(text) });
    expect(s().buildForm.policy).toEqual({ kind: 'checkpoint', name: 'for-default' });

    const extra = {
      name: 'Unit Checker',
      agentType: 'CoTAgent' as const,
      prompt: 'Check that every quantity carries the unit the question asks for.',
      does: 'Checks units.',
      refuseWhen: 'Reply exactly "REFUSE: <reason>" when no quantity has a unit.',
    };
    await s().applyBuildPool({ ...DEFAULT_POOL, roles: [...DEFAULT_POOL.roles, extra] });
    // The stored checkpoint was made for ten roles: the form falls back to the prior.
    expect(s().buildForm.policy).toEqual({ kind: 'prior' });
    await start({ source: 'custom', query: 'A rope is 3 m long; how many cm is that?', execute: 'off' });
    expect(s().buildPreview?.distribution).toHaveLength(DEFAULT_POOL.roles.length + 3);
    await s().pickBuildAction(DEFAULT_POOL.roles.length);
    await s().buildStep();
    expect(stepsOf(session())[0]?.action).toMatchObject({ kind: 'add', role: 'Unit Checker' });

    s().setBuildForm({ policy: { kind: 'checkpoint', name: 'for-default' } });
    await s().startBuild();
    expect(s().buildProblems[0]?.message).toMatch(/made for roles/);
    await s().loadCheckpointFile({ name: 'cp.json', size: text.length, text: () => Promise.resolve(text) });
    expect(s().buildProblems[0]?.code).toBe('E_POLICY_FILE');
    await s().loadBuildPool(ROLE_POOL_VERSION);
  });
});

/** Chat-completion requests the server received. */
function chats(server: OpenAIServer): number {
  return server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')).length;
}

function fail(): never {
  throw new Error('unexpected');
}
