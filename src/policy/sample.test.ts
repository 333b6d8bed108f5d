import { describe, expect, it } from 'vitest';
import { TraceSchema, type Task } from '../core/trace.ts';
import { generateTask, type Axis } from '../masbench/index.ts';
import { fromDesign, validateDesign } from '../design/validate.ts';
import { actionNames, exitIndex } from './actions.ts';
import { checkConstruction, recomputeLogProb } from './check.ts';
import { initialState, type ConstructionState } from './construction.ts';
import { encodeTask } from './encoder.ts';
import { PolicyNetwork, randomCheckpoint } from './network.ts';
import { priorCheckpoint } from './prior.ts';
import { DEFAULT_POOL } from './roles.ts';
import { construct } from './episode.ts';
import { policyStep, previewStep, seededLinks, stepRng } from './sample.ts';
import type { IntermediateRunner } from './step-types.ts';

const pool = DEFAULT_POOL;
const masTask = (axis: Axis, value: number, seed: number): Task => {
  const t = generateTask({ axis, value, seed });
  return {
    query: t.question,
    groundTruth: t.answers.join(', '),
    source: { kind: 'masbench', axis, value, taskId: t.id },
    seed,
  };
};
const custom: Task = {
  query: 'What is 17 times 23, minus 4?',
  groundTruth: '387',
  source: { kind: 'custom' },
};

describe('JPSS sampling', () => {
  it('every step: distribution sums to 1, masked actions are exactly 0, logProb matches the trace, design valid', async () => {
    const nets = [
      await PolicyNetwork.cpu(randomCheckpoint(pool, 1)),
      await PolicyNetwork.cpu(priorCheckpoint(pool)),
    ];
    let steps = 0;
    for (const net of nets) {
      for (let seed = 0; seed < 12; seed++) {
        const task =
          seed % 3 === 0 ? custom : masTask(seed % 2 === 0 ? 'depth' : 'parallel', 2 + (seed % 9), seed);
        const masked: number[] = [];
        const c = await construct({
          policy: net,
          pool,
          task,
          seed,
          temperature: seed % 4 === 1 ? 1.7 : 1,
          onStep: (o) => {
            o.evaluation.mask.forEach((m, i) => {
              if (m === 0) masked.push(o.step.roleDistribution[i]?.p ?? NaN);
            });
          },
        });
        expect(masked.length).toBeGreaterThan(0);
        for (const p of masked) expect(p).toBe(0);
        expect(TraceSchema.safeParse(c.trace).success).toBe(true);
        expect(checkConstruction(c.trace)).toEqual([]);
        expect(validateDesign(fromDesign(c.design))).toEqual([]);
        expect(c.steps.at(-1)?.action.kind).toBe('exit');
        for (const st of c.steps) {
          const sum = st.roleDistribution.reduce((a, d) => a + d.p, 0);
          expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
          expect(st.logProb).not.toBeNull();
          expect(Math.abs((recomputeLogProb(st) as number) - (st.logProb as number))).toBeLessThan(1e-9);
          steps++;
        }
      }
    }
    expect(steps).toBeGreaterThan(30);
  });

  it('masked actions get probability exactly 0 in the recorded distribution', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 2));
    const s0 = initialState(pool, { maxAgents: 12, maxSteps: 16 });
    const out = await policyStep(net, encodeTask(custom.query, 256), s0, stepRng(1, 0));
    const dist = out.step.roleDistribution;
    expect(dist.map((d) => d.action)).toEqual(actionNames(pool));
    expect(dist.find((d) => d.action === 'DELETE')?.p).toBe(0);
    expect(dist.find((d) => d.action === 'EXIT')?.p).toBe(0);
    expect(dist.filter((d) => d.p > 0)).toHaveLength(pool.roles.length);
  });

  it('the same seed gives the same construction; another seed usually another', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 3));
    const task = masTask('depth', 6, 4);
    const a = await construct({ policy: net, pool, task, seed: 9 });
    const b = await construct({ policy: net, pool, task, seed: 9 });
    expect(b.steps).toEqual(a.steps);
    const others = await Promise.all(
      [10, 11, 12, 13].map((seed) => construct({ policy: net, pool, task, seed })),
    );
    expect(others.some((o) => JSON.stringify(o.steps) !== JSON.stringify(a.steps))).toBe(true);
  });

  it('greedy takes the argmax action and links with p ≥ 0.5', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const c = await construct({ policy: net, pool, task: masTask('depth', 5, 1), seed: 0, greedy: true });
    for (const st of c.steps) {
      const best = Math.max(...st.roleDistribution.map((d) => d.p));
      const label = st.action.kind === 'add' ? st.action.role : st.action.kind.toUpperCase();
      expect(st.roleDistribution.find((d) => d.action === label)?.p).toBe(best);
      if (st.action.kind === 'add') {
        const links = new Set(st.action.links);
        for (const e of st.edgeProbabilities) expect(links.has(e.from)).toBe(e.p >= 0.5);
      }
    }
  });

  it('user choices are applied, recorded as chooser "user", and keep their policy log-probability', async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 4));
    const verifier = pool.roles.findIndex((r) => r.name === 'Verifier');
    const c = await construct({
      policy: net,
      pool,
      task: custom,
      seed: 5,
      choose: (i) =>
        i === 0
          ? { action: verifier }
          : i === 1
            ? { action: 0, links: ['verifier-1'] }
            : i === 2
              ? { action: exitIndex(pool) }
              : undefined,
    });
    expect(c.steps.map((s) => s.chooser)).toEqual(['user', 'user', 'user']);
    expect(c.steps[1]?.action).toMatchObject({ kind: 'add', links: ['verifier-1'] });
    expect(checkConstruction(c.trace)).toEqual([]);
  });

  it('previewStep shows what policyStep then records, for the user-chosen role', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    const task = encodeTask(custom.query, 256);
    let s = initialState(pool);
    s = (await policyStep(net, task, s, stepRng(0, 0))).state;
    const critic = pool.roles.findIndex((r) => r.name === 'Critic');
    const preview = await previewStep(net, task, s, { seed: 0, temperature: 1, role: critic });
    expect(preview.role).toBe(critic);
    expect(preview.distribution).toHaveLength(actionNames(pool).length);
    const edges = preview.edges;
    expect(edges.map((e) => e.from)).toEqual(s.agents.map((a) => a.id));
    const out = await policyStep(net, task, s, stepRng(0, 1), {}, { action: critic });
    expect(out.step.roleDistribution).toEqual(
      actionNames(pool).map((action, i) => ({ action, p: preview.distribution[i] })),
    );
    expect(out.step.edgeProbabilities).toEqual(edges);
    expect(out.step.action).toMatchObject({ kind: 'add', links: preview.sampledLinks });
  });

  it("seededLinks gives the links a sampled step then takes (previewed role or the policy's own ADD)", async () => {
    const net = await PolicyNetwork.cpu(randomCheckpoint(pool, 6));
    const solver = pool.roles.findIndex((r) => r.name === 'Solver');
    const task = encodeTask(masTask('parallel', 6, 3).query, 256);
    let linked = 0;
    let unlinked = 0;
    let sampledAdds = 0;
    for (const seed of [1, 2, 3, 4]) {
      let s: ConstructionState = initialState(pool);
      // Grow the graph with user-chosen Solvers so there are agents to link, then let the policy step.
      for (let i = 0; i < 6 && !s.exited; i++) {
        const role = i < 5 ? solver : (i + seed) % pool.roles.length;
        const preview = await previewStep(net, task, s, { seed, temperature: 1, role });
        const p = preview.edges.map((e) => e.p);
        const want = seededLinks(s, seed, p);
        expect(preview.sampledLinks).toEqual(want);
        const out = await policyStep(net, task, s, stepRng(seed, s.step), {}, { action: role });
        expect(out.step.action).toMatchObject({ kind: 'add', links: want });
        linked += want.length;
        unlinked += s.agents.length - want.length;
        s = out.state;
      }
      const free = await policyStep(net, task, s, stepRng(seed, s.step));
      if (free.step.action.kind === 'add') {
        const p = free.step.edgeProbabilities.map((e) => e.p);
        expect(free.step.action.links).toEqual(seededLinks(s, seed, p));
        sampledAdds++;
      }
    }
    // Both outcomes occur, so the comparison says something about the draws.
    expect(linked).toBeGreaterThan(3);
    expect(unlinked).toBeGreaterThan(3);
    expect(sampledAdds).toBeGreaterThan(0);
  });

  it('with a runner, records intermediate answers and action-wise rewards', async () => {
    const net = await PolicyNetwork.cpu(priorCheckpoint(pool));
    // Correct once the MAS has at least three agents (a stand-in for the executor).
    const runner: IntermediateRunner = (design) =>
      Promise.resolve({ answer: String(design.agents.length), correct: design.agents.length >= 3 });
    const c = await construct({
      policy: net,
      pool,
      task: masTask('depth', 8, 2),
      seed: 0,
      greedy: true,
      runner,
    });
    const flags = c.steps.map((s) => s.intermediateCorrect);
    expect(flags).toEqual(c.steps.map((_, i) => i >= 2));
    expect(c.steps[2]?.actionReward).toBe(1);
    expect(c.steps[0]?.actionReward).toBe(0);
    expect(c.steps[3]?.actionReward).toBeCloseTo(0.5 * 0.7 ** 3, 12);
    expect(c.state.results).toHaveLength(c.steps.length);
  });
});
