/**
 * The Build page and `baton construct` drive one construction episode (src/policy/episode.ts): a
 * Build session driven through the store (CPU backend pinned) and the CLI command with the same
 * task, policy, seed and the user's choices must write the same trace.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/command.ts';
import { constructCommand } from '../../src/cli/commands/construct.ts';
import { TraceSchema, type ConstructionStep, type Trace } from '../../src/core/trace.ts';
import { generateTask } from '../../src/masbench/index.ts';
import { checkConstruction } from '../../src/policy/check.ts';
import { sessionTrace, stepsOf } from '../../src/store/construction.ts';
import { memoryCheckpoints } from '../../src/store/services/policy-checkpoints.ts';
import { memoryRecents } from '../../src/store/services/recents.ts';
import { memoryRolePools } from '../../src/store/services/roles.ts';
import { configureBuild, type BuildEnv } from '../../src/store/slices/build.ts';
import { configureLibrary, type LibraryEnv } from '../../src/store/slices/library.ts';
import { resetBaton, useBaton } from '../../src/store/store.ts';

const NOW = new Date('2026-11-22T05:00:00Z');
const TASK = { axis: 'depth' as const, value: 5, seed: 3 };
const SEED = 7;
const s = () => useBaton.getState();

let previousBuild: BuildEnv;
let previousLibrary: LibraryEnv;
beforeAll(() => {
  previousBuild = configureBuild({
    storage: memoryCheckpoints(),
    pools: memoryRolePools(),
    prefer: 'cpu',
    now: () => NOW,
  });
  previousLibrary = configureLibrary({ storage: memoryRecents() });
});
afterAll(() => {
  configureBuild(previousBuild);
  configureLibrary(previousLibrary);
});

let dir: string;
let out: string[];
let err: string[];
let io: CliIO;
beforeEach(async () => {
  resetBaton();
  dir = await mkdtemp(join(tmpdir(), 'baton-parity-'));
  out = [];
  err = [];
  io = { out: (l) => out.push(l), err: (l) => err.push(l), cwd: dir, now: () => NOW };
  await writeFile(join(dir, 'task.json'), JSON.stringify(generateTask(TASK)));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What the CLI's --choices file says for each step the user chose on the Build page. */
interface Choice {
  step: number;
  action: string;
  links?: readonly string[];
}

const nameOf = (step: ConstructionStep): string =>
  step.action.kind === 'add' ? step.action.role : step.action.kind.toUpperCase();

/**
 * A construction on the Build page with every kind of input: sampled steps, a picked role, toggled
 * links, an undone step, DELETE and EXIT. Returns the choices the user made, as the CLI reads them.
 */
async function buildOnPage(execute: 'off' | 'simulator'): Promise<Choice[]> {
  s().setBuildForm({ source: 'masbench', ...{ axis: TASK.axis, value: TASK.value, taskSeed: TASK.seed } });
  s().setBuildForm({ seed: SEED, temperature: 1, execute, policy: { kind: 'prior' } });
  await s().startBuild();
  expect(s().buildProblems).toEqual([]);
  const linked = new Set<number>();
  const toggleFirst = (): void => {
    const target = s().buildPreview?.edges[0]?.from;
    if (!target) return;
    s().toggleBuildLink(target);
    linked.add(s().buildSession?.cursor ?? -1);
  };
  await s().buildStep();
  await s().pickBuildAction(2);
  await s().buildStep();
  toggleFirst();
  await s().buildStep();
  await s().undoBuild();
  linked.delete(2);
  await s().buildStep();
  toggleFirst();
  await s().buildStep();
  await s().buildDelete();
  await s().pickBuildAction(6);
  await s().buildStep();
  await s().buildExit();
  const session = s().buildSession;
  if (!session) throw new Error('no session');
  expect(s().buildProblems).toEqual([]);
  const steps = stepsOf(session);
  expect(steps.at(-1)?.action.kind).toBe('exit');
  const user = steps.filter((x) => x.chooser === 'user');
  // Two picks, the toggled links, DELETE and EXIT were the user's; the other steps sampled.
  expect(user.map(nameOf)).toEqual(['Solver', expect.any(String), 'DELETE', 'Critic', 'EXIT']);
  expect(steps.length).toBeGreaterThan(user.length);
  return user.map((x) => ({
    step: x.index,
    action: nameOf(x),
    ...(linked.has(x.index) && x.action.kind === 'add' ? { links: x.action.links } : {}),
  }));
}

async function construct(choices: Choice[], execute: 'simulated' | null): Promise<Trace> {
  await writeFile(join(dir, 'choices.json'), JSON.stringify(choices));
  const code = await constructCommand.run(
    [
      ...['--policy', 'prior', '--task', 'task.json', '--seed', String(SEED), '--backend', 'cpu'],
      ...['--choices', 'choices.json', '--out', 't.json'],
      ...(execute ? ['--execute', execute] : []),
    ],
    io,
  );
  expect(err).toEqual([]);
  expect(code).toBe(0);
  return TraceSchema.parse(JSON.parse(await readFile(join(dir, 't.json'), 'utf8')));
}

describe('Build page and baton construct', () => {
  it('give the same trace for the same task, seed and choices', async () => {
    const choices = await buildOnPage('off');
    // Both the links the user set and the ones a picked role draws are reproduced.
    expect(choices.some((c) => c.links !== undefined)).toBe(true);
    expect(choices.some((c) => c.links === undefined && c.action === 'Solver')).toBe(true);
    const page = sessionTrace(s().buildSession!);
    const cli = await construct(choices, null);
    expect(cli).toEqual(page);
    expect(checkConstruction(cli)).toEqual([]);
  });

  it('give the same construction with intermediate answers on the simulator, and the same final answer', async () => {
    const choices = await buildOnPage('simulator');
    const page = sessionTrace(s().buildSession!);
    expect(page.construction.every((x) => x.intermediateRun?.backend === 'simulated')).toBe(true);
    const cli = await construct(choices, 'simulated');
    expect(cli.execution.status).toBe('completed');
    // Both run the finished design on the simulator; only the run's clock readings differ.
    const id = await s().runBuild('simulator');
    const ran = s().openTraces[id ?? ''];
    if (!ran) throw new Error('the Build page kept no trace');
    const untimed = ({ execution, totals, ...rest }: Trace) => ({
      ...rest,
      events: execution.events.map((e) => `${e.type} ${'agentId' in e ? e.agentId : ''}`),
      tokens: [totals.llmCalls, totals.promptTokens, totals.completionTokens, totals.costUsd],
    });
    expect(untimed(cli)).toEqual(untimed(ran));
    expect(cli.construction).toEqual(page.construction);
  });
});
