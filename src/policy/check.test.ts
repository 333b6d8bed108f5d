import { describe, expect, it } from 'vitest';
import type { Trace } from '../core/trace.ts';
import { checkConstruction, recomputeLogProb } from './check.ts';
import { PolicyNetwork, randomCheckpoint } from './network.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './episode.ts';

async function sampleTrace(): Promise<Trace> {
  const net = await PolicyNetwork.cpu(randomCheckpoint(DEFAULT_POOL, 9));
  const task = {
    query: 'Plan a three-day trip and list the costs.',
    groundTruth: null,
    source: { kind: 'custom' as const },
  };
  for (let seed = 0; seed < 50; seed++) {
    const c = await construct({ policy: net, pool: DEFAULT_POOL, task, seed });
    if (c.steps.some((s) => s.action.kind === 'add' && s.edgeProbabilities.length > 0)) return c.trace;
  }
  throw new Error('no construction with edge choices');
}

describe('construction checker', () => {
  it('accepts a sampled trace and catches a tampered log-probability, distribution, link or design', async () => {
    const trace = await sampleTrace();
    expect(checkConstruction(trace)).toEqual([]);
    const k = trace.construction.findIndex((s) => s.action.kind === 'add' && s.edgeProbabilities.length > 0);
    const step = trace.construction[k];
    if (!step || step.action.kind !== 'add') throw new Error('unreachable');
    const edit = (f: (t: Trace) => void): Trace => {
      const copy = structuredClone(trace);
      f(copy);
      return copy;
    };
    expect(
      checkConstruction(
        edit((t) => ((t.construction[k] as typeof step).logProb = (step.logProb ?? 0) - 0.01)),
      ),
    ).toHaveLength(1);
    expect(
      checkConstruction(
        edit((t) => {
          const e = (t.construction[k] as typeof step).edgeProbabilities[0];
          if (e) e.p = Math.min(1, e.p + 0.05);
        }),
      ).some((p) => p.includes('logProb')),
    ).toBe(true);
    expect(
      checkConstruction(
        edit((t) => (((t.construction[0] as typeof step).roleDistribution[0] as { p: number }).p += 0.1)),
      ).some((p) => p.includes('sums')),
    ).toBe(true);
    expect(
      checkConstruction(edit((t) => t.design.edges.pop())).some((p) => p.startsWith('design rule')),
    ).toBe(true);
    // Flipping one link changes the recomputed log-probability by log(p) − log(1 − p).
    const flipped = structuredClone(step);
    if (flipped.action.kind !== 'add') throw new Error('unreachable');
    const first = flipped.edgeProbabilities[0];
    if (!first) throw new Error('unreachable');
    const had = flipped.action.links.includes(first.from);
    flipped.action.links = had
      ? flipped.action.links.filter((l) => l !== first.from)
      : [...flipped.action.links, first.from];
    const delta = (recomputeLogProb(flipped) as number) - (recomputeLogProb(step) as number);
    expect(delta).toBeCloseTo(
      had ? Math.log(1 - first.p) - Math.log(first.p) : Math.log(first.p) - Math.log(1 - first.p),
      9,
    );
  });
});
