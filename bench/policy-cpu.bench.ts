/**
 * CPU the construction-policy trainer spends outside the compute core's kernels and outside the
 * simulator: state encoding, the batched sampler's bookkeeping and the learner's minibatch assembly
 * (self time of src/policy and src/train), and garbage collection, per episode of whole iterations.
 *
 * Each run is a child process: a trainer (B = 16 tasks × G = 8, preset mixed, from `prior`, batched
 * sampling, simulator fast path) runs 2 untimed iterations, then ITERS iterations under the V8
 * sampling profiler (node:inspector, 200 µs), whose samples are summed by source folder. With
 * `--baseline DIR` (a checkout of an older commit, its node_modules linked) the same runs load that
 * checkout's src/ too, alternating with this one round by round so that load on the machine hits
 * both alike; the table gives the median of ROUNDS rounds per backend, and the median ratio of
 * policy + train to the compute core's time of the same run (the core's code being the same in both
 * checkouts, the ratio cancels how busy the machine was during each run).
 *
 *   npm run bench:policy-cpu -- [--baseline DIR]      (ROUNDS=3 ITERS=6, backends cpu and wasm)
 *
 * Each run first times ITERS iterations without the profiler for the trainer's own phase timings
 * (rollout, encoding the batch, old and reference log π, the updates, and the read-back phase after
 * them: the arena and the iteration's checkpoint), medians, in a second table.
 *
 * Wall-clock sampling: on a busy machine every folder's time stretches alike, so compare rows of
 * one round, or the ratios, rather than absolute numbers across runs.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve } from 'node:path';
import type * as Runners from '../src/executor/train-runners.ts';
import type * as Policy from '../src/policy/index.ts';
import type * as Train from '../src/train/index.ts';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ITERS = Number(process.env.ITERS ?? 6);
const EPISODES = 16 * 8;

/** Profile categories: where a sample's innermost frame is. */
const CATEGORIES = ['policy+train', 'gc', 'core', 'simulator', 'other'] as const;
/** The trainer's own phase timings of an iteration (`IterationMetrics.timings`), ms. */
const PHASES = ['rollout', 'encode', 'oldLogp', 'steps', 'readBack'] as const;
type Phases = Record<(typeof PHASES)[number], number>;
type Row = Record<(typeof CATEGORIES)[number], number> & { epsPerS: number; phases?: Phases };

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

function categorise(profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }): Row {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const row: Row = { 'policy+train': 0, gc: 0, core: 0, simulator: 0, other: 0, epsPerS: 0 };
  profile.samples.forEach((id, i) => {
    const f = byId.get(id);
    const dt = profile.timeDeltas[i] ?? 0;
    if (!f || f.functionName === '(idle)') return;
    const u = f.url;
    const c =
      f.functionName === '(garbage collector)'
        ? 'gc'
        : /\/src\/(policy|train)\//.test(u)
          ? 'policy+train'
          : /\/src\/gpu\//.test(u) || u.startsWith('wasm')
            ? 'core'
            : /\/src\/executor\//.test(u)
              ? 'simulator'
              : 'other';
    row[c] += dt;
  });
  return row;
}

/** One child run: profile ITERS iterations of the trainer whose src/ is under `root`. */
async function child(root: string, backend: 'cpu' | 'wasm'): Promise<void> {
  const src = (p: string): string => resolve(root, 'src', p);
  const { simulatedRunners } = (await import(src('executor/train-runners.ts'))) as typeof Runners;
  const { DEFAULT_POOL, priorCheckpoint } = (await import(src('policy/index.ts'))) as typeof Policy;
  const { Trainer, trainConfig } = (await import(src('train/index.ts'))) as typeof Train;
  const config = trainConfig({ preset: 'mixed', seed: 0, tasksPerIteration: 16, groupSize: 8 });
  const trainer = await Trainer.create({
    start: priorCheckpoint(DEFAULT_POOL),
    pool: DEFAULT_POOL,
    config,
    choice: { backend, reason: 'benchmark', adapter: null, ctx: null },
    runners: simulatedRunners,
    sampling: 'batched',
    clock: () => performance.now(),
  });
  await trainer.iterate();
  await trainer.iterate();
  // The phases from ITERS iterations without the profiler, then ITERS under it for the folders.
  const phases: Phases[] = [];
  for (let i = 0; i < ITERS; i++) {
    const t = (await trainer.iterate()).timings;
    const p = t?.phases;
    if (t && p)
      phases.push({
        rollout: t.rolloutMs,
        encode: p.encodeMs,
        oldLogp: p.oldLogpMs,
        steps: p.stepsMs,
        readBack: p.readBackMs,
      });
  }
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const t0 = performance.now();
  for (let i = 0; i < ITERS; i++) await trainer.iterate();
  const ms = performance.now() - t0;
  const { profile } = await session.post('Profiler.stop');
  trainer.dispose();
  const row = categorise(profile as unknown as Parameters<typeof categorise>[0]);
  // µs per episode for the categories, episodes/s for the run.
  const per = (x: number): number => Math.round(x / (ITERS * EPISODES));
  const out = Object.fromEntries(CATEGORIES.map((c) => [c, per(row[c])]));
  // Per phase, the median over the iterations.
  const phase = Object.fromEntries(PHASES.map((k) => [k, median(phases.map((x) => x[k]))])) as Phases;
  process.stdout.write(
    `${JSON.stringify({ ...out, epsPerS: (ITERS * EPISODES * 1000) / ms, phases: phase })}\n`,
  );
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

function main(): void {
  const args = process.argv.slice(2);
  const at = args.indexOf('--baseline');
  const baseline = at >= 0 ? resolve(args[at + 1] ?? '') : null;
  const here = resolve(import.meta.dirname, '..');
  const roots = baseline
    ? [
        { name: 'baseline', root: baseline },
        { name: 'this checkout', root: here },
      ]
    : [{ name: 'this checkout', root: here }];
  const lines: string[] = [];
  const all = new Map<string, Row[]>();
  for (const backend of ['wasm', 'cpu'] as const) {
    const rows = new Map<string, Row[]>(roots.map((r) => [r.name, []]));
    for (const r of roots) all.set(`${backend} · ${r.name}`, rows.get(r.name) ?? []);
    for (let round = 0; round < ROUNDS; round++)
      for (const r of roots) {
        const text = execFileSync(
          process.execPath,
          ['--import', 'tsx', import.meta.filename, '--child', r.root, backend],
          {
            encoding: 'utf8',
            stdio: ['ignore', 'pipe', 'inherit'],
            env: { ...process.env, ITERS: String(ITERS) },
          },
        );
        const row = JSON.parse(text.trim().split('\n').pop() ?? '{}') as Row;
        rows.get(r.name)?.push(row);
        console.log(backend, r.name, `round ${round + 1}`, JSON.stringify(row));
      }
    for (const r of roots) {
      const rs = rows.get(r.name) ?? [];
      const cell = (k: keyof Row): string => String(Math.round(median(rs.map((x) => x[k]) as number[])));
      // Per mille of the compute core's time in the same run: the core's code is the same in both
      // checkouts, so the ratio cancels how busy the machine was during that run.
      const share = Math.round(median(rs.map((x) => (1000 * x['policy+train']) / x.core)));
      lines.push(
        `| ${backend} | ${r.name} | ${cell('policy+train')} | ${share} ‰ | ${cell('gc')} | ${cell('core')} | ${cell('simulator')} | ${cell('other')} | ${cell('epsPerS')} |`,
      );
    }
  }
  if (baseline) {
    // The same round's runs follow each other: their ratio is the least exposed to load changes.
    for (const backend of ['wasm', 'cpu'] as const) {
      const b = all.get(`${backend} · baseline`) ?? [];
      const t = all.get(`${backend} · this checkout`) ?? [];
      const ratio = (k: 'policy+train' | 'gc'): string =>
        median(b.map((x, i) => x[k] / (t[i]?.[k] ?? NaN))).toFixed(2);
      console.log(
        `${backend}: baseline / this checkout, same round, median: policy + train ${ratio('policy+train')}×, GC ${ratio('gc')}×`,
      );
    }
  }
  // The trainer's phases per iteration (ms, median over rounds of each run's median): the readBack
  // phase is what follows the updates (the arena read and the iteration's checkpoint).
  const phaseLines = [...all].map(([k, rs]) => {
    const cells = PHASES.map((p) => median(rs.map((x) => x.phases?.[p] ?? NaN)).toFixed(2));
    return `| ${k.replace(' · ', ' | ')} | ${cells.join(' | ')} |`;
  });
  console.log(
    [
      '\nphases per iteration (ms, without the profiler):',
      `| backend | code | ${PHASES.join(' | ')} |`,
      `|---|---|${PHASES.map(() => '---:').join('|')}|`,
      ...phaseLines,
    ].join('\n'),
  );
  const table = [
    '| backend | code | policy + train (µs/episode) | policy + train / compute core | GC | compute core | simulator | other | episodes/s |',
    '|---|---|---|---|---|---|---|---|---|',
    ...lines,
  ].join('\n');
  console.log(`\nmedian of ${ROUNDS} rounds, ${ITERS} iterations each (B = 16, G = 8)\n${table}`);
  const results = Object.fromEntries([...all].map(([k, rs]) => [k, rs]));
  writeFileSync(
    resolve(here, 'bench/results/policy-cpu.json'),
    `${JSON.stringify({ rounds: ROUNDS, iterations: ITERS, runs: results }, null, 2)}\n`,
  );
}

if (process.argv[2] === '--child')
  await child(process.argv[3] ?? '.', process.argv[4] === 'cpu' ? 'cpu' : 'wasm');
else main();
