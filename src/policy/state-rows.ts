/**
 * The fast form of one state's packed rows (`PackedStates.add`): the state vector s
 * (`encodeState`), the action mask (`actionMask`), the agent rows (`encodeAgentRows`) and the
 * message lists (`stateLinks`), written straight into the packed buffers from one pass over the
 * graph. The reference forms each rebuild the graph's reader counts from id strings (Maps, Sets,
 * arrays of objects); here each link is resolved to its agent once, into reused scratch arrays, and
 * nothing is allocated per state.
 *
 * Every number is the reference form's, computed by the same float64 expression and rounded once to
 * float32 when stored (state-rows.test.ts compares both forms on random constructions). The
 * resolution by index assumes agent ids are unique, as `applyAction` issues them; `summarize`
 * reports a hand-built state with a repeated id, and the caller then takes the reference forms.
 */
import { exitForced, type ConstructionState, type IntermediateResult } from './construction.ts';
import { answerKey, isRefusal } from '../answers/index.ts';
import {
  agentDim,
  agentFlagOffset,
  cueOffset,
  graphOffset,
  lastActionOffset,
  resultOffset,
  roleCountOffset,
  sinkRoleOffset,
  stateDim,
  AGENT,
  GRAPH,
  RESULT,
  type EncoderConfig,
  type TaskEncoding,
} from './encoder.ts';

/** The packed buffers a state is written into (`PackedStates`' arrays). */
export interface StateRowsTarget {
  readonly state: Float32Array;
  readonly mask: Float32Array;
  readonly agents: Float32Array;
  readonly readMean: Float32Array;
  readonly readSink: Float32Array;
  readonly msgFrom: Uint32Array;
  readonly msgTo: Uint32Array;
  readonly inWeight: Float32Array;
  readonly outWeight: Float32Array;
}

/** An answer's key and whether it is a refusal, as `encodeResults` reads them. */
interface AnswerFeatures {
  key: string;
  refusal: boolean;
}

/**
 * The last answers read, by text: every state of a construction encodes its last three results
 * again, and the learner encodes them once more. Both readings are pure functions of the text.
 */
const recentAnswers = new Map<string, AnswerFeatures>();
const RECENT_ANSWERS = 4096;

function answerFeatures(answer: string): AnswerFeatures {
  const kept = recentAnswers.get(answer);
  if (kept) return kept;
  const f = { key: answerKey(answer), refusal: isRefusal(answer) };
  if (recentAnswers.size >= RECENT_ANSWERS) recentAnswers.clear();
  recentAnswers.set(answer, f);
  return f;
}

/**
 * A result's answer features, kept with the result object: a construction's states share their
 * earlier results, and the learner packs the sampler's states, so most lookups find the object and
 * need not hash the answer text again. The answer is stored with them and compared on every lookup.
 */
const byResult = new WeakMap<IntermediateResult, { answer: string; f: AnswerFeatures }>();

function resultFeatures(r: IntermediateResult): AnswerFeatures | null {
  const answer = r.answer;
  if (answer === null) return null;
  const kept = byResult.get(r);
  if (kept !== undefined && kept.answer === answer) return kept.f;
  const f = answerFeatures(answer);
  byResult.set(r, { answer, f });
  return f;
}

// Scratch of the last `summarize`, read by the `write*` functions right after it (no await between).
let cap = 0;
/** Per link, in agent then link order: the index of the agent it names, −1 when none. */
let target = new Int32Array(0);
/** Per agent: links naming it, from any agent / from an agent of the first N. */
let readersAll = new Int32Array(0);
let readersSlice = new Int32Array(0);
/** Per agent of the first N: its links to an agent of the first N. */
let linksSlice = new Int32Array(0);
let roleCounts = new Int32Array(0);
let sinkCounts = new Int32Array(0);
let totalLinks = 0;
let sliceLinks = 0;

function grow(agents: number, links: number): void {
  if (agents > cap) {
    cap = Math.max(agents, 2 * cap, 16);
    readersAll = new Int32Array(cap);
    readersSlice = new Int32Array(cap);
    linksSlice = new Int32Array(cap);
  }
  if (links > target.length) target = new Int32Array(Math.max(links, 2 * target.length, 64));
}

/**
 * Resolves the links of `s` (its first `enc.maxAgents` agents for the message lists, all of them
 * for the state vector, as the reference forms do). Returns the number of message slots the state
 * takes, or −1 when two agents share an id (then only the reference forms are exact).
 */
export function summarize(enc: EncoderConfig, s: ConstructionState): number {
  const agents = s.agents;
  const L = agents.length;
  const n = Math.min(L, enc.maxAgents);
  let links = 0;
  for (let k = 0; k < L; k++) links += (agents[k] as ConstructionState['agents'][number]).links.length;
  grow(L, links);
  for (let i = 0; i < L; i++) {
    const id = (agents[i] as ConstructionState['agents'][number]).id;
    for (let j = 0; j < i; j++) if ((agents[j] as ConstructionState['agents'][number]).id === id) return -1;
    readersAll[i] = 0;
    readersSlice[i] = 0;
    linksSlice[i] = 0;
  }
  let at = 0;
  let inSlice = 0;
  for (let k = 0; k < L; k++) {
    const ls = (agents[k] as ConstructionState['agents'][number]).links;
    for (let x = 0; x < ls.length; x++) {
      const id = ls[x];
      // Links name earlier agents: search backwards from the reader.
      let j = -1;
      for (let i = Math.min(k, L) - 1; i >= 0; i--)
        if ((agents[i] as ConstructionState['agents'][number]).id === id) {
          j = i;
          break;
        }
      if (j < 0)
        for (let i = k; i < L; i++)
          if ((agents[i] as ConstructionState['agents'][number]).id === id) {
            j = i;
            break;
          }
      target[at++] = j;
      if (j < 0) continue;
      readersAll[j] = (readersAll[j] as number) + 1;
      if (k < n && j < n) {
        readersSlice[j] = (readersSlice[j] as number) + 1;
        linksSlice[k] = (linksSlice[k] as number) + 1;
        inSlice++;
      }
    }
  }
  totalLinks = links;
  sliceLinks = inSlice;
  return inSlice;
}

const clip01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

/** `actionMask(s)` into `mask` from `at` (A = roles + 2 entries). */
export function writeMask(s: ConstructionState, mask: Float32Array, at: number, A: number): void {
  mask.fill(0, at, at + A);
  if (s.exited) return;
  const n = s.agents.length;
  const forced = exitForced(s);
  const roles = s.pool.roles.length;
  if (!forced && n < s.limits.maxAgents) mask.fill(1, at, at + roles);
  if (!forced && n > 0) mask[at + roles] = 1;
  if (n > 0) mask[at + roles + 1] = 1;
}

/** The `RESULT` block of `encodeState` (never reads `correct`). */
function writeResults(
  results: readonly IntermediateResult[],
  step: number,
  maxSteps: number,
  out: Float32Array,
  at: number,
): void {
  const n = results.length;
  if (n === 0) return;
  const newest = results[n - 1] as IntermediateResult;
  const answered = newest.step === step - 1 && newest.answer !== null;
  const nf = answered ? resultFeatures(newest) : null;
  out[at + RESULT.answered] = answered ? 1 : 0;
  out[at + RESULT.refused] = nf !== null && nf.refusal ? 1 : 0;
  const a = nf === null || nf.refusal ? null : nf.key;
  const pf = n >= 2 ? resultFeatures(results[n - 2] as IntermediateResult) : null;
  const b = pf === null || pf.refusal ? null : pf.key;
  out[at + RESULT.agree] = a !== null && a !== '' && a === b ? 1 : 0;
  // Distinct keys among the last three results (null answers, refusals and empty keys left out).
  let x0: string | null = null;
  let x1: string | null = null;
  let distinct = 0;
  for (let i = Math.max(0, n - 3); i < n; i++) {
    const f = resultFeatures(results[i] as IntermediateResult);
    if (f === null || f.refusal || f.key === '') continue;
    if (f.key === x0 || f.key === x1) continue;
    if (x0 === null) x0 = f.key;
    else x1 = f.key;
    distinct++;
  }
  out[at + RESULT.distinct] = distinct / 3;
  out[at + RESULT.recorded] = clip01(n / maxSteps);
}

/** `encodeState(cfg, task, s)` into `out` from `at` (after `summarize(cfg, s)`). */
export function writeState(
  cfg: EncoderConfig,
  task: TaskEncoding,
  s: ConstructionState,
  out: Float32Array,
  at: number,
): void {
  if (s.pool.roles.length !== cfg.roles)
    throw new Error(`encoder expects ${cfg.roles} roles, the pool has ${s.pool.roles.length}`);
  const S = stateDim(cfg);
  const R = cfg.roles;
  out.fill(0, at, at + S);
  const q = task.query;
  out.set(q.length <= cfg.hashDim ? q : q.subarray(0, cfg.hashDim), at);
  out.set(task.cues, at + cueOffset(cfg));
  if (roleCounts.length < R) {
    roleCounts = new Int32Array(R);
    sinkCounts = new Int32Array(R);
  }
  roleCounts.fill(0, 0, R);
  sinkCounts.fill(0, 0, R);
  const agents = s.agents;
  const L = agents.length;
  let depth = 0;
  let sinks = 0;
  let starts = 0;
  for (let i = 0; i < L; i++) {
    const a = agents[i] as ConstructionState['agents'][number];
    const r = a.role;
    const inRange = r >= 0 && r < R && Number.isInteger(r);
    if (inRange) roleCounts[r] = (roleCounts[r] as number) + 1;
    if (readersAll[i] === 0) {
      sinks++;
      if (inRange) sinkCounts[r] = (sinkCounts[r] as number) + 1;
    }
    if (a.links.length === 0) starts++;
    depth = Math.max(depth, a.depth);
  }
  const rc = at + roleCountOffset(cfg);
  const sc = at + sinkRoleOffset(cfg);
  for (let r = 0; r < R; r++) {
    out[rc + r] = Math.min(roleCounts[r] as number, 4) / 4;
    out[sc + r] = Math.min(sinkCounts[r] as number, 4) / 4;
  }
  const last = lastActionOffset(cfg) + (s.lastAction ?? R + 2);
  if (last >= 0 && last < S) out[at + last] = 1;
  const n = cfg.maxAgents;
  const g = at + graphOffset(cfg);
  out[g + GRAPH.agents] = clip01(L / n);
  out[g + GRAPH.empty] = L === 0 ? 1 : 0;
  out[g + GRAPH.depth] = clip01(depth / n);
  out[g + GRAPH.sinks] = clip01(sinks / n);
  out[g + GRAPH.starts] = clip01(starts / n);
  out[g + GRAPH.edges] = clip01(totalLinks / (2 * n));
  out[g + GRAPH.step] = clip01(s.step / cfg.maxSteps);
  out[g + GRAPH.forced] = exitForced(s) ? 1 : 0;
  writeResults(s.results, s.step, cfg.maxSteps, out, at + resultOffset(cfg));
}

/** `encodeAgentRows(cfg, s, out, first)` (after `summarize(cfg, s)`); returns the rows written. */
export function writeAgentRows(
  cfg: EncoderConfig,
  s: ConstructionState,
  out: Float32Array,
  first: number,
): number {
  const w = agentDim(cfg);
  const f = agentFlagOffset(cfg);
  const N = cfg.maxAgents;
  const n = Math.min(s.agents.length, N);
  out.fill(0, first * w, (first + n) * w);
  const latest = s.changed[s.changed.length - 1];
  for (let i = 0; i < n; i++) {
    const a = s.agents[i] as ConstructionState['agents'][number];
    const row = (first + i) * w;
    const outDeg = readersAll[i] as number;
    out[row] = 1;
    out[row + 1 + a.role] = 1;
    out[row + f + AGENT.latest] = a.id === latest ? 1 : 0;
    out[row + f + AGENT.sink] = outDeg === 0 ? 1 : 0;
    out[row + f + AGENT.start] = a.links.length === 0 ? 1 : 0;
    out[row + f + AGENT.depth] = clip01(a.depth / N);
    out[row + f + AGENT.outDegree] = clip01(outDeg / N);
    out[row + f + AGENT.inDegree] = clip01(a.links.length / N);
    out[row + f + AGENT.age] = clip01((s.step - a.addedAt) / cfg.maxSteps);
  }
  return n;
}

/**
 * `stateLinks(cfg, s)` written at agent row `row` and message slot `slot` (after
 * `summarize(cfg, s)`): link j → k goes to rows row + j → row + k.
 */
export function writeLinks(
  cfg: EncoderConfig,
  s: ConstructionState,
  t: StateRowsTarget,
  row: number,
  slot: number,
): void {
  const agents = s.agents;
  const n = Math.min(agents.length, cfg.maxAgents);
  let at = 0;
  let m = slot;
  for (let k = 0; k < n; k++) {
    const count = (agents[k] as ConstructionState['agents'][number]).links.length;
    const inW = 1 / (linksSlice[k] as number);
    for (let x = 0; x < count; x++) {
      const j = target[at + x] as number;
      if (j < 0 || j >= n) continue;
      t.msgFrom[m] = row + j;
      t.msgTo[m] = row + k;
      t.inWeight[m] = inW;
      t.outWeight[m] = 1 / (readersSlice[j] as number);
      m++;
    }
    at += count;
  }
  let sinks = 0;
  for (let i = 0; i < n; i++) if (readersSlice[i] === 0) sinks++;
  for (let i = 0; i < n; i++) {
    t.readMean[row + i] = 1 / n;
    t.readSink[row + i] = readersSlice[i] === 0 ? 1 / sinks : 0;
  }
  if (m - slot !== sliceLinks) throw new Error('the links changed between summarize and writeLinks');
}
