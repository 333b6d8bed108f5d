import { afterAll, describe, expect, it } from 'vitest';
import { ABLATION_VARIANTS, trainConfig } from '../train/index.ts';
import { channelTrainWorker } from './train.local.ts';
import type { AblationProgressReport } from './train.methods.ts';

/**
 * The training worker's `ablation` and `rerun` methods over a MessageChannel (the real handlers,
 * the real client, structured clone), on the CPU backend: progress per (variant, seed, iteration),
 * the study's summary, cancelling part-way, and the worker still serving afterwards.
 */
const client = channelTrainWorker();
afterAll(() => client.close());

const base = trainConfig({
  preset: 'robustness',
  tasksPerIteration: 2,
  groupSize: 2,
  epochs: 1,
  minibatch: 32,
  seed: 7,
});

const input = {
  base,
  from: { kind: 'prior' as const },
  variants: ['hrpo', 'reinforce'],
  seeds: [7, 8],
  iterations: 2,
  evalN: 4,
  evalSeed: 1,
  backend: 'cpu' as const,
};

describe('train worker: ablation study', () => {
  it('runs every variant × seed with progress and answers the summary', async () => {
    const reports: AblationProgressReport[] = [];
    const r = await client.ablation(input, { onProgress: (p) => reports.push(p) });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const s = r.value;
    expect(s.complete).toBe(true);
    expect(s.variants.map((v) => v.variant)).toEqual(['hrpo', 'reinforce']);
    expect(s.variants.map((v) => v.seeds)).toEqual([2, 2]);
    expect(s.runs).toHaveLength(4);
    for (const v of s.variants) {
      expect(v.curve).toHaveLength(2);
      expect(v.accuracy.interval[0]).toBeLessThanOrEqual(v.accuracy.mean);
      expect(v.accuracy.interval[1]).toBeGreaterThanOrEqual(v.accuracy.mean);
    }
    // Per run: iterations 1, 2, then 3 = evaluated.
    expect(reports.map((p) => `${p.variant}/${p.seed}/${p.iteration}`)).toEqual(
      ['hrpo', 'reinforce'].flatMap((v) =>
        [7, 8].flatMap((seed) => [1, 2, 3].map((i) => `${v}/${seed}/${i}`)),
      ),
    );
    expect(reports.at(-1)?.runsTotal).toBe(4);
  }, 120_000);

  it('refuses an unknown variant by name', async () => {
    const r = await client.ablation({ ...input, variants: ['hrpo', 'nope'] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toContain('"nope"');
  });

  it('stops when cancelled, and the worker serves the next call', async () => {
    const controller = new AbortController();
    const reports: AblationProgressReport[] = [];
    const r = await client.ablation(
      { ...input, variants: ABLATION_VARIANTS.map((v) => v.id), iterations: 50 },
      {
        signal: controller.signal,
        onProgress: (p) => {
          reports.push(p);
          if (reports.length === 2) controller.abort();
        },
      },
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.code).toBe('E_WORKER_CANCELLED');
    // The cancelled study gave up its place in the queue: a re-run answers.
    const again = await client.rerun({ config: base, from: { kind: 'prior' }, iterations: 1 });
    expect(again.ok).toBe(true);
    expect(again.ok && again.value).toHaveLength(1);
    expect(reports.length).toBe(2);
  }, 120_000);
});
