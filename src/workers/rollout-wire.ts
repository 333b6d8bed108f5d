import type { ConstructionStep } from '../core/trace.ts';
import {
  actionKind,
  actionNames,
  applyAction,
  initialState,
  toValidDesign,
  withResult,
  type ConstructionState,
  type PolicyAction,
  type RolePool,
} from '../policy/index.ts';
import type { PooledRolloutRequest, Rollout } from '../train/index.ts';
import type { WireBlock } from './rollout.methods.ts';

/**
 * A rollout worker's answer in columns (rollout.methods.ts `WireBlockSchema`): a block's
 * constructions as a few typed arrays and one table of distinct texts, against an object per step
 * and per probability. Structured cloning then copies buffers instead of walking some ten thousand
 * small objects, and the trainer's thread checks numbers in one loop instead of a schema walk per
 * object: what one answer costs that thread is in docs/benchmarks.md ("Rollouts on worker
 * threads").
 *
 * What does not cross is what the replay rebuilds from the actions: each step's action record (agent
 * ids and types, the summariser's id), the agents an edge probability is from, the states before
 * each step and the design after the last. A link crosses as the position of its agent among the
 * agents before the step.
 */

/** `results` flags of a step: which of its intermediate-run fields it has, and their nulls. */
const HAS_ANSWER = 1;
const NULL_ANSWER = 2;
const HAS_CORRECT = 4;
const NULL_CORRECT = 8;
const CORRECT_TRUE = 16;
const HAS_RUN = 32;
const HAS_REWARD = 64;
const NULL_REWARD = 128;

const STATUSES = ['completed', 'failed', 'cancelled', 'skipped'] as const;
type IntermediateRun = NonNullable<ConstructionStep['intermediateRun']>;
/** Numbers of an intermediate run, in this order, per step (`run`). */
const RUN_FIELDS = ['calls', 'cachedCalls', 'promptTokens', 'completionTokens', 'costUsd'] as const;

const tri = (b: boolean | null): number => (b === null ? -1 : b ? 1 : 0);

/** The block's rollouts in columns (a worker's answer). Throws when a step does not fit the pool. */
export function encodeRollouts(rs: readonly Rollout[], pool: RolePool): WireBlock {
  const names = actionNames(pool);
  const A = names.length;
  const roleIndex = new Map(pool.roles.map((r, i) => [r.name, i]));
  let S = 0;
  let E = 0;
  let L = 0;
  for (const r of rs)
    for (const s of r.steps) {
      S++;
      E += s.edgeProbabilities.length;
      if (s.action.kind === 'add') L += s.action.links.length;
    }
  const w: WireBlock = {
    counts: new Uint8Array(rs.length),
    correct: new Int8Array(rs.length),
    tokens: new Float64Array(rs.length),
    col: new Uint16Array(S),
    linkCounts: new Uint8Array(S),
    links: new Uint16Array(L),
    roleP: new Float64Array(S * A),
    edgeP: new Float64Array(E),
    logProb: new Float64Array(S),
    user: new Uint8Array(S),
    results: new Uint8Array(S),
    answer: new Int32Array(S).fill(-1),
    reward: new Float64Array(S),
    run: new Float64Array(S * RUN_FIELDS.length),
    runCode: new Uint8Array(S),
    problem: new Int32Array(S).fill(-1),
    intermediate: new Int8Array(S),
    texts: [],
  };
  const textIndex = new Map<string, number>();
  const text = (t: string): number => {
    let i = textIndex.get(t);
    if (i === undefined) {
      i = w.texts.length;
      w.texts.push(t);
      textIndex.set(t, i);
    }
    return i;
  };
  let k = 0;
  let e = 0;
  let l = 0;
  for (const [i, r] of rs.entries()) {
    if (r.steps.length > 255 || r.intermediate.length !== r.steps.length)
      throw new Error(
        `construction ${i}: ${r.steps.length} steps, ${r.intermediate.length} intermediate results`,
      );
    w.counts[i] = r.steps.length;
    w.correct[i] = tri(r.correct);
    w.tokens[i] = r.tokens;
    for (const [j, s] of r.steps.entries()) {
      const a = s.action;
      const col = a.kind === 'add' ? roleIndex.get(a.role) : a.kind === 'delete' ? A - 2 : A - 1;
      if (col === undefined)
        throw new Error(`step ${s.index}: role "${(a as { role: string }).role}" is not in the pool`);
      w.col[k] = col;
      if (s.roleDistribution.length !== A || s.roleDistribution.some((d, n) => d.action !== names[n]))
        throw new Error(`step ${s.index}: its role distribution is not over the pool's actions in order`);
      for (let n = 0; n < A; n++) w.roleP[k * A + n] = (s.roleDistribution[n] as { p: number }).p;
      if (a.kind === 'add') {
        const from = s.edgeProbabilities.map((x) => x.from);
        w.linkCounts[k] = a.links.length;
        for (const id of a.links) {
          const at = from.indexOf(id);
          if (at < 0) throw new Error(`step ${s.index}: link from ${id} has no edge probability`);
          w.links[l++] = at;
        }
      }
      for (const x of s.edgeProbabilities) w.edgeP[e++] = x.p;
      w.logProb[k] = s.logProb ?? Number.NaN;
      w.user[k] = s.chooser === 'user' ? 1 : 0;
      let flags = 0;
      if (s.intermediateAnswer !== undefined) {
        flags |= HAS_ANSWER;
        if (s.intermediateAnswer === null) flags |= NULL_ANSWER;
        else w.answer[k] = text(s.intermediateAnswer);
      }
      if (s.intermediateCorrect !== undefined) {
        flags |= HAS_CORRECT;
        if (s.intermediateCorrect === null) flags |= NULL_CORRECT;
        else if (s.intermediateCorrect) flags |= CORRECT_TRUE;
      }
      const run = s.intermediateRun;
      if (run) {
        flags |= HAS_RUN;
        RUN_FIELDS.forEach((f, n) => (w.run[k * RUN_FIELDS.length + n] = run[f]));
        w.runCode[k] = (run.backend === 'remote' ? 1 : 0) | (STATUSES.indexOf(run.status) << 1);
        if (run.problem !== undefined) w.problem[k] = text(run.problem);
      }
      if (s.actionReward !== undefined) {
        flags |= HAS_REWARD;
        if (s.actionReward === null) flags |= NULL_REWARD;
        else w.reward[k] = s.actionReward;
      }
      w.results[k] = flags;
      w.intermediate[k] = tri(r.intermediate[j] ?? null);
      k++;
    }
  }
  return w;
}

const isP = (p: number): boolean => p >= 0 && p <= 1;
const triOf = (x: number): boolean | null | undefined =>
  x === -1 ? null : x === 0 ? false : x === 1 ? true : undefined;

/**
 * A block's rollouts from a worker's answer (parsed by `WireBlockSchema`), or why they do not fit
 * the block: every number checked, the actions replayed from the empty MAS for the states before
 * each step, the steps' action records and the design after the last.
 */
export function rolloutsFromWire(
  w: WireBlock,
  block: PooledRolloutRequest['episodes'],
  r: Pick<PooledRolloutRequest, 'pool' | 'checkpoint' | 'maxSteps'>,
): Rollout[] | string {
  const n = w.counts.length;
  if (n !== block.length) return `it answered ${n} constructions for a block of ${block.length}`;
  if (w.correct.length !== n || w.tokens.length !== n) return 'its per-construction columns differ in length';
  const names = actionNames(r.pool);
  const A = names.length;
  let S = 0;
  for (let i = 0; i < n; i++) S += w.counts[i] as number;
  const R = RUN_FIELDS.length;
  const perStep = [
    w.col,
    w.linkCounts,
    w.logProb,
    w.user,
    w.results,
    w.answer,
    w.reward,
    w.runCode,
    w.problem,
  ];
  if (perStep.some((c) => c.length !== S) || w.intermediate.length !== S)
    return `its per-step columns do not hold ${S} steps`;
  if (w.roleP.length !== S * A || w.run.length !== S * R)
    return `its per-step columns do not hold ${S} steps`;
  let L = 0;
  for (let k = 0; k < S; k++) L += w.linkCounts[k] as number;
  if (w.links.length !== L) return `it sent ${w.links.length} links for ${L}`;
  const textAt = (i: number): string | undefined => w.texts[i];
  const limits = {
    maxAgents: r.checkpoint.config.maxAgents,
    maxSteps: Math.min(r.maxSteps, r.checkpoint.config.maxSteps),
  };
  const out: Rollout[] = [];
  let k = 0;
  let e = 0;
  let l = 0;
  for (let i = 0; i < n; i++) {
    // Messages are built only for a refusal (this loop runs for every step of every answer).
    const why = (): string => `construction ${i} of its block`;
    const count = w.counts[i] as number;
    const correct = triOf(w.correct[i] as number);
    const tokens = w.tokens[i] as number;
    if (correct === undefined || !Number.isSafeInteger(tokens) || tokens < 0)
      return `${why()} has no valid outcome`;
    if (count > limits.maxSteps) return `${why()} has ${count} steps, more than ${limits.maxSteps}`;
    const steps: ConstructionStep[] = [];
    const states: ConstructionState[] = [];
    const intermediate: (boolean | null)[] = [];
    let s = initialState(r.pool, limits);
    for (let j = 0; j < count; j++, k++) {
      const at = (): string => `${why()}: step ${j}`;
      const col = w.col[k] as number;
      if (col >= A) return `${at()} takes action ${col} of ${A}`;
      const kind = actionKind(r.pool, col);
      let action: PolicyAction;
      const agents = s.agents;
      if (kind.kind === 'add') {
        const links: string[] = [];
        for (let m = w.linkCounts[k] as number; m > 0; m--) {
          const id = agents[w.links[l++] as number]?.id;
          if (id === undefined || links.includes(id))
            return `${at()} links an agent that is not there, or twice`;
          links.push(id);
        }
        action = { kind: 'add', role: kind.role, links };
      } else {
        if ((w.linkCounts[k] as number) > 0) return `${at()} has links but adds no agent`;
        action = kind;
      }
      let applied: ReturnType<typeof applyAction>;
      try {
        applied = applyAction(s, action);
      } catch (err) {
        return `${at()} does not replay: ${err instanceof Error ? err.message : String(err)}`;
      }
      const roleDistribution: ConstructionStep['roleDistribution'] = [];
      for (let m = 0; m < A; m++) {
        const p = w.roleP[k * A + m] as number;
        if (!isP(p)) return `${at()} has an action probability outside [0, 1]`;
        roleDistribution.push({ action: names[m] as string, p });
      }
      const edgeProbabilities: ConstructionStep['edgeProbabilities'] = [];
      if (kind.kind === 'add') {
        if (e + agents.length > w.edgeP.length) return `${at()} lacks edge probabilities`;
        for (const a of agents) {
          const p = w.edgeP[e++] as number;
          if (!isP(p)) return `${at()} has an edge probability outside [0, 1]`;
          edgeProbabilities.push({ from: a.id, p });
        }
      }
      const lp = w.logProb[k] as number;
      if (!(Number.isNaN(lp) || lp <= 0)) return `${at()} has a log-probability above 0`;
      const user = w.user[k] as number;
      if (user > 1) return `${at()} has no chooser`;
      const step: ConstructionStep = {
        index: j,
        action: applied.record,
        roleDistribution,
        edgeProbabilities,
        logProb: Number.isNaN(lp) ? null : lp,
        chooser: user === 1 ? 'user' : 'policy',
      };
      const got = resultFields(w, k, textAt);
      if (typeof got === 'string') return `${at()} ${got}`;
      Object.assign(step, got);
      const mid = triOf(w.intermediate[k] as number);
      if (mid === undefined) return `${at()} has no valid intermediate result`;
      intermediate.push(mid);
      steps.push(step);
      states.push(s);
      s = applied.state;
      if (step.intermediateAnswer !== undefined)
        s = withResult(s, step.intermediateAnswer ?? null, step.intermediateCorrect ?? null);
    }
    const design = toValidDesign(s);
    if (!design) return `${why()} ended without agents`;
    out.push({
      task: (block[i] as (typeof block)[number]).task,
      steps,
      design,
      agents: design.agents.length,
      edges: design.edges.length,
      correct,
      tokens,
      intermediate,
      states,
    });
  }
  if (e !== w.edgeP.length) return `it sent ${w.edgeP.length} edge probabilities for ${e}`;
  return out;
}

/** Step `k`'s intermediate-run fields, in the order the sampler records them, or what is wrong. */
function resultFields(
  w: WireBlock,
  k: number,
  textAt: (i: number) => string | undefined,
): Partial<ConstructionStep> | string {
  const flags = w.results[k] as number;
  const out: Partial<ConstructionStep> = {};
  if (flags & HAS_ANSWER) {
    if (flags & NULL_ANSWER) out.intermediateAnswer = null;
    else {
      const t = textAt(w.answer[k] as number);
      if (t === undefined) return 'names an answer text that was not sent';
      out.intermediateAnswer = t;
    }
  }
  if (flags & HAS_CORRECT)
    out.intermediateCorrect = flags & NULL_CORRECT ? null : (flags & CORRECT_TRUE) !== 0;
  if (flags & HAS_RUN) {
    const code = w.runCode[k] as number;
    const status = STATUSES[code >> 1];
    if (status === undefined || code > 7) return 'has an unknown run status';
    const run: IntermediateRun = {
      backend: code & 1 ? 'remote' : 'simulated',
      status,
      calls: 0,
      cachedCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
    };
    for (const [m, f] of RUN_FIELDS.entries()) {
      const x = w.run[k * RUN_FIELDS.length + m] as number;
      if (!(Number.isFinite(x) && x >= 0)) return `has a run ${f} that is not a number ≥ 0`;
      run[f] = x;
    }
    const p = w.problem[k] as number;
    if (p !== -1) {
      const t = textAt(p);
      if (t === undefined) return 'names a problem text that was not sent';
      run.problem = t;
    }
    out.intermediateRun = run;
  }
  if (flags & HAS_REWARD) {
    const x = w.reward[k] as number;
    if (!(flags & NULL_REWARD) && !Number.isFinite(x)) return 'has a reward that is not finite';
    out.actionReward = flags & NULL_REWARD ? null : x;
  }
  return out;
}
