/**
 * The learner's training batch packs the states the sampler went through (`EpisodeSteps.states`)
 * instead of replaying the recorded steps: both must give the same packed rows, bit for bit.
 */
import { describe, expect, it } from 'vitest';
import { generateTask, taskOfMasbench } from '../masbench/index.ts';
import { trainingBatch, type EpisodeSteps } from './batch.ts';
import { encodeTask } from './encoder.ts';
import { construct, type Construction } from './episode.ts';
import { PolicyNetwork, randomCheckpoint } from './network.ts';
import type { PackedStates } from './pack.ts';
import { DEFAULT_POOL } from './roles.ts';
import type { IntermediateRunner } from './step-types.ts';

const pool = DEFAULT_POOL;
const ANSWERS = ['7', '\\boxed{7}', 'REFUSE: out of scope', '12'];
const runner: IntermediateRunner = (design) =>
  Promise.resolve({
    answer: design.agents.length === 2 ? null : (ANSWERS[design.agents.length % ANSWERS.length] as string),
    correct: design.agents.length % 2 === 0,
  });

function bits(p: PackedStates): Record<string, number[] | number> {
  const out: Record<string, number[] | number> = {
    states: p.states,
    rows: p.rows,
    links: p.links,
    edges: p.edges,
  };
  for (const [k, v] of Object.entries(p))
    if (v instanceof Float32Array) out[k] = Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));
    else if (v instanceof Uint32Array) out[k] = Array.from(v);
  return out;
}

describe('trainingBatch with the sampled states', () => {
  it('packs the rows a replay of the steps packs, bit for bit (with intermediate answers)', async () => {
    const cp = randomCheckpoint(pool, 5);
    const net = await PolicyNetwork.cpu(cp);
    const limits = { maxAgents: cp.config.maxAgents, maxSteps: 9 };
    const runs: Construction[] = [];
    try {
      for (let seed = 0; seed < 6; seed++) {
        const task = taskOfMasbench(generateTask({ axis: 'depth', value: 3 + (seed % 3), seed }));
        runs.push(
          await construct({ policy: net, pool, task, seed, maxSteps: 9, ...(seed % 3 ? { runner } : {}) }),
        );
      }
    } finally {
      net.dispose();
    }
    const episodes = (withStates: boolean): EpisodeSteps[] =>
      runs.map((c) => ({
        task: encodeTask(c.trace.task.query, cp.config.hashDim),
        steps: c.steps,
        limits,
        ...(withStates ? { states: c.episode.frames.slice(0, c.episode.cursor).map((f) => f.state) } : {}),
      }));
    const replayed = trainingBatch(cp.config, pool, episodes(false));
    const given = trainingBatch(cp.config, pool, episodes(true));
    expect(replayed.batch).toBeGreaterThan(20);
    expect(runs.some((c) => c.steps.some((s) => s.intermediateAnswer !== undefined))).toBe(true);
    expect([given.batch, given.edgeRows]).toEqual([replayed.batch, replayed.edgeRows]);
    expect(bits(given.rows)).toEqual(bits(replayed.rows));
    // States that do not fit (one missing, another pool object) are not used: the steps are replayed.
    const off = episodes(true).map((e, i) => (i === 0 ? { ...e, states: e.states?.slice(1) } : e));
    expect(bits(trainingBatch(cp.config, pool, off).rows)).toEqual(bits(replayed.rows));
    expect(bits(trainingBatch(cp.config, { ...pool }, episodes(true)).rows)).toEqual(bits(replayed.rows));
  });
});
