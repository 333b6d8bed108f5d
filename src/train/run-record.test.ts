import { describe, expect, it } from 'vitest';
import type { BackendChoice } from '../gpu/index.ts';
import { DEFAULT_POOL } from '../policy/index.ts';
import { trainConfig } from './config.ts';
import { Trainer } from './loop.ts';
import type { RunnersFor } from './rollout.ts';
import { builtInStart, firstDifference, parseRunRecord, recordCheckpoint, runRecord } from './run-record.ts';

const cpu: BackendChoice = { backend: 'cpu', reason: 'test', adapter: null, ctx: null };
// Two or more agents answer correctly; each agent costs 1000 tokens.
const runners: RunnersFor = () => ({
  intermediate: (design) => Promise.resolve({ answer: 'x', correct: design.agents.length >= 2 }),
  final: (trace) =>
    Promise.resolve({ correct: trace.design.agents.length >= 2, tokens: 1000 * trace.design.agents.length }),
});
const config = trainConfig({
  tasksPerIteration: 2,
  groupSize: 2,
  minibatch: 16,
  epochs: 1,
  maxSteps: 4,
  lr: 0.01,
});

async function trainFrom(name: string, c = config, iterations = 2) {
  const start = builtInStart(name);
  if (!start) throw new Error(`no built-in ${name}`);
  const t = await Trainer.create({ start, pool: DEFAULT_POOL, config: c, choice: cpu, runners });
  for (let i = 0; i < iterations; i++) await t.iterate();
  const current = t.checkpoint;
  const history = [...t.history];
  t.dispose();
  return { start, current, history };
}

describe('training-run records', () => {
  it('re-run from the record alone reproduces every recorded number, and a changed seed does not', async () => {
    const a = await trainFrom('random:5');
    const text = JSON.stringify(runRecord({ config, from: 'random:5', history: a.history }));
    const parsed = parseRunRecord(JSON.parse(text));
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const r = parsed.record;
    expect(r.iterations).toBe(2);
    expect(r.curves.meanReward).toHaveLength(2);
    const again = await trainFrom(r.from, r.config);
    expect(firstDifference(r, again.history)).toBeNull();
    const other = await trainFrom(r.from, trainConfig({ ...config, seed: 9 }));
    expect(firstDifference(r, other.history)).not.toBeNull();
    expect(firstDifference(r, again.history.slice(0, 1))).toMatchObject({ key: 'iterations' });
  });

  it('a record made before advantageNorm existed reads as std and still re-runs exactly', async () => {
    const std = trainConfig({ ...config, advantageNorm: 'std' });
    const a = await trainFrom('random:5', std);
    const old = JSON.parse(JSON.stringify(runRecord({ config: std, from: 'random:5', history: a.history })));
    delete old.config.advantageNorm;
    const parsed = parseRunRecord(old);
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    expect(parsed.record.config.advantageNorm).toBe('std');
    expect(
      firstDifference(parsed.record, (await trainFrom('random:5', parsed.record.config)).history),
    ).toBeNull();
    const centred = await trainFrom('random:5', trainConfig({ ...config, advantageNorm: 'mean' }));
    expect(firstDifference(parsed.record, centred.history)).not.toBeNull();
  });

  it('carries the trained parameters as an int8 delta within half a step of the original', async () => {
    const a = await trainFrom('prior', config, 1);
    const r = runRecord({
      config,
      from: 'prior',
      history: a.history,
      trained: { start: a.start, current: a.current },
    });
    const back = recordCheckpoint(r, a.start);
    if (!back.ok) throw new Error(back.reason);
    let moved = 0;
    for (const [k, want] of Object.entries(a.current.params)) {
      const scale = r.checkpoint?.tensors[k]?.scale ?? 0;
      const got = back.checkpoint.params[k] as number[];
      want.forEach((w, i) => expect(Math.abs((got[i] as number) - w)).toBeLessThanOrEqual(scale / 2 + 1e-6));
      if (scale > 0) moved++;
    }
    expect(moved).toBeGreaterThan(0);
    const broken = structuredClone(r);
    const first = Object.keys(broken.checkpoint?.tensors ?? {})[0] as string;
    (broken.checkpoint?.tensors[first] as { q: string }).q = 'AAAA';
    expect(recordCheckpoint(broken, a.start)).toMatchObject({ ok: false });
    expect(recordCheckpoint({ ...r, checkpoint: undefined }, a.start)).toMatchObject({ ok: false });
  });

  it('rejects a damaged record with a clear problem, and names only built-in starts as re-runnable', () => {
    const bad = parseRunRecord({
      format: 'baton.trainrun/1',
      config: {},
      from: 'prior',
      iterations: 2,
      curves: {},
      roles: {},
      evaluation: [],
    });
    expect(bad.ok ? '' : bad.problems.join()).toMatch(/curves\.meanReward/);
    expect(builtInStart('prior')?.name).toBe('prior');
    expect(builtInStart('random:3')?.name).toBe('random:3');
    expect(builtInStart('trained:hrpo:mixed:4')).toBeNull();
  });
});
