/**
 * State features for the JPSS heads. Everything is a function of the task text and the
 * construction state, works offline (no vocabulary, no model) and is deterministic.
 *
 * State vector s, length `stateDim(cfg)` (R = roles in the pool, D = cfg.hashDim, N = cfg.maxAgents,
 * T = cfg.maxSteps):
 *
 * | offset             | size  | block                                                               |
 * |--------------------|-------|---------------------------------------------------------------------|
 * | 0                  | D     | query n-grams: signed feature hashing, L2-normalised                |
 * | D                  | 12    | MASBench cues (`CUE`), each in [0, 1]                                |
 * | D + 12             | R     | agents per role, min(count, 4) / 4                                  |
 * | D + 12 + R         | R     | sinks per role, min(count, 4) / 4 (one message-passing hop)         |
 * | D + 12 + 2R        | R + 3 | last action one-hot: roles, DELETE, EXIT, none                      |
 * | D + 12 + 3R + 3    | 8     | graph scalars (`GRAPH`)                                             |
 * | D + 12 + 3R + 11   | 5     | intermediate answers (`RESULT`, encoder version 2)                  |
 *
 * Agent vector a_i (one row per agent slot, length `agentDim(cfg)`; empty slots are all zero):
 * [1, role one-hot (R), `AGENT` flags (7)].
 *
 * The graph itself (encoder version 3) goes to the network's message-passing layers as message
 * lists: `links.ts`.
 *
 * Versions. A checkpoint records the layout it was made for (`config.encoder`, absent = 1) and
 * checkpoint.ts migrates older checkpoints so that the old network's numbers stay bit-identical:
 * 2 appended features at the end of s (zero rows for the [S, ·] parameters; the CPU matmul keeps
 * its summation order for the existing rows), 3 added the message-passing block, whose outputs
 * enter the heads through weights that a migration sets to zero.
 * - 1: query, cues, role counts, sinks per role, last action, graph scalars;
 * - 2: + intermediate answers (`RESULT`);
 * - 3: + the links themselves, through message passing (s and a_i unchanged).
 *
 * Long because the feature layout (offsets and cue tables) and the code that fills it must change
 * together; the table below is the contract the network and the checkpoints rely on.
 */
import { answerKey, isRefusal } from '../answers/index.ts';
import {
  dagDepth,
  exitForced,
  sinksOf,
  type ConstructionState,
  type IntermediateResult,
} from './construction.ts';

/** The state layout this code writes (see "Versions" above). */
export const ENCODER_VERSION = 3;

export interface EncoderConfig {
  /** Width D of the hashed n-gram block. */
  hashDim: number;
  /** Agent slots N of the edge head (= the construction's maxAgents). */
  maxAgents: number;
  /** Step budget T (= the construction's maxSteps). */
  maxSteps: number;
  /** Number of roles R in the pool. */
  roles: number;
}

/** Offsets inside the 12-wide cue block. Counts are divided by the given scale and clipped to 1. */
export const CUE = {
  /** 1 when the text parses as a MASBench-style task (≥ 2 "The number of each …" definitions). */
  masbench: 0,
  /** Sentences / 32. */
  sentences: 1,
  /** Question marks / 12. */
  questionMarks: 2,
  /** Asked quantities / 12 ("Answer these N questions", else question marks). */
  asks: 3,
  /** 1 when more than one answer is asked for. */
  multiAsk: 4,
  /** Longest definition chain ending at an asked quantity / 12 (estimated sub-task depth). */
  depth: 5,
  /** Most quantities one definition reads / 12 (breadth). */
  breadth: 6,
  /** Independent groups of asked quantities (no shared ancestor) / 12 (parallel branches). */
  parallel: 7,
  /** Misleading notes ("Note:", "Hint:", "answer key") / 12. */
  notes: 8,
  /** 1 when the task is deep and single-answer: estimated depth ≥ 3 and one ask. */
  deep: 9,
  /** 1 when the asked quantities fall into ≥ 2 independent groups. */
  wide: 10,
  /** Numbers in the text / 32. */
  numbers: 11,
} as const;
export const CUE_DIM = 12;

/** Offsets inside the 8-wide graph-scalar block. */
export const GRAPH = {
  /** Agents / N. */
  agents: 0,
  /** 1 when there are no agents. */
  empty: 1,
  /** DAG depth (agents on the longest path) / N. */
  depth: 2,
  /** Sinks / N. */
  sinks: 3,
  /** Starts (agents without links) / N. */
  starts: 4,
  /** Edges / (2N). */
  edges: 5,
  /** Step index / T. */
  step: 6,
  /** 1 when only EXIT is allowed. */
  forced: 7,
} as const;
export const GRAPH_DIM = 8;

/** Offsets of the per-agent flags, after the bias and the role one-hot. */
export const AGENT = {
  /** 1 for the most recently changed agent (the newest branch end). */
  latest: 0,
  /** 1 when nothing reads it yet. */
  sink: 1,
  /** 1 when it has no links (reads the question). */
  start: 2,
  /** Its depth / N. */
  depth: 3,
  /** Readers / N. */
  outDegree: 4,
  /** Links / N. */
  inDegree: 5,
  /** Steps since it was added / T. */
  age: 6,
} as const;
export const AGENT_FLAGS = 7;

/**
 * Offsets inside the 5-wide intermediate-answer block. After each action the partial MAS may be
 * run (`withResult` appends `{ step, answer, correct }` to `state.results`); these features read
 * only what is known at inference time: the answers, never `correct` (the policy must not see the
 * label). Answers are compared after `normalizeAnswer`. All are 0 when nothing was executed, so a
 * construction without a runner encodes exactly as in encoder version 1.
 */
export const RESULT = {
  /**
   * 1 when the MAS as it stands has an answer: the newest result is for the latest step and its
   * answer is not null. `refused` and `agree` are about this answer only, because an answer of an
   * earlier graph (say, before a DELETE that has not been run yet) says nothing sure about this one.
   */
  answered: 0,
  /** 1 when that answer is a refusal (`isRefusal`: the roles' "REFUSE: <reason>"). */
  refused: 1,
  /**
   * 1 when that answer and the result before it agree: both non-null, neither a refusal, equal and
   * non-empty after `normalizeAnswer`. Another agent that changes nothing is a sign to stop.
   */
  agree: 2,
  /**
   * Distinct normalised answers among the last 3 results / 3 (null answers and refusals left out):
   * 1/3 when the answer is stable, 1 when every run said something else.
   */
  distinct: 3,
  /** Results recorded / T, clipped to 1 (how many of the steps were executed). */
  recorded: 4,
} as const;
export const RESULT_DIM = 5;

export const cueOffset = (c: EncoderConfig): number => c.hashDim;
export const roleCountOffset = (c: EncoderConfig): number => c.hashDim + CUE_DIM;
export const sinkRoleOffset = (c: EncoderConfig): number => roleCountOffset(c) + c.roles;
export const lastActionOffset = (c: EncoderConfig): number => sinkRoleOffset(c) + c.roles;
export const graphOffset = (c: EncoderConfig): number => lastActionOffset(c) + c.roles + 3;
export const resultOffset = (c: EncoderConfig): number => graphOffset(c) + GRAPH_DIM;

/** Length of s in the layout of an encoder version (1..ENCODER_VERSION). */
export function stateDimFor(c: EncoderConfig, version: number): number {
  if (version === 1) return resultOffset(c);
  if (version === 2 || version === 3) return resultOffset(c) + RESULT_DIM;
  throw new Error(`unknown encoder version ${version} (this Baton writes 1..${ENCODER_VERSION})`);
}
/** Length of s in the current layout. */
export const stateDim = (c: EncoderConfig): number => stateDimFor(c, ENCODER_VERSION);
/** Agent row: bias 1, role one-hot, flags. */
export const agentDim = (c: EncoderConfig): number => 1 + c.roles + AGENT_FLAGS;
export const agentFlagOffset = (c: EncoderConfig): number => 1 + c.roles;

const clip01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : x);

// ---------------------------------------------------------------- query n-grams

/**
 * Signed feature hashing (Weinberger et al. 2009): each n-gram g adds ±1 to bucket h(g) mod D, where
 * h is the 32-bit FNV-1a hash of the tagged n-gram (`w:<word>`, `b:<word> <word>`, `c:<3 chars>`,
 * the same value `hashString` gives) and the sign is the low bit of h after the MurmurHash3
 * finaliser, so collisions cancel in expectation. Words are lower-cased runs of [a-z0-9]; character
 * trigrams are taken over the lower-cased text with whitespace runs collapsed to one space. The
 * vector is L2-normalised (empty text → zero vector). Hashes are folded character by character, with
 * no substring allocations: this is most of a construction step's encoding time.
 */
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const fold = (h: number, c: number): number => Math.imul(h ^ c, FNV_PRIME);
const foldRange = (h: number, s: string, from: number, to: number): number => {
  for (let i = from; i < to; i++) h = fold(h, s.charCodeAt(i));
  return h;
};
const TAG_W = fold(fold(FNV_OFFSET, 119), 58); // "w:"
const TAG_B = fold(fold(FNV_OFFSET, 98), 58); // "b:"
const TAG_C = fold(fold(FNV_OFFSET, 99), 58); // "c:"

function signOf(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return (x & 1) === 0 ? 1 : -1;
}

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57);

export function hashQuery(
  text: string,
  dim: number,
  out: Float32Array = new Float32Array(dim),
): Float32Array {
  out.fill(0);
  const add = (h: number): void => {
    const u = h >>> 0;
    const bucket = u % dim;
    out[bucket] = (out[bucket] as number) + signOf(u);
  };
  const lower = text.toLowerCase();
  let prevStart = -1;
  let prevEnd = -1;
  for (let i = 0; i < lower.length;) {
    if (!isWordChar(lower.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < lower.length && isWordChar(lower.charCodeAt(i))) i++;
    add(foldRange(TAG_W, lower, start, i));
    if (prevStart >= 0)
      add(foldRange(fold(foldRange(TAG_B, lower, prevStart, prevEnd), 32), lower, start, i));
    prevStart = start;
    prevEnd = i;
  }
  const squashed = lower.replace(/\s+/g, ' ');
  for (let i = 0; i + 3 <= squashed.length; i++) add(foldRange(TAG_C, squashed, i, i + 3));
  let sq = 0;
  for (let i = 0; i < dim; i++) sq += (out[i] as number) ** 2;
  if (sq > 0) {
    const inv = 1 / Math.sqrt(sq);
    for (let i = 0; i < dim; i++) out[i] = (out[i] as number) * inv;
  }
  return out;
}

// ---------------------------------------------------------------- MASBench cues

/** A quantity name as MASBench words it: "Sunny Farm's Packing Shed". */
const QUANTITY = /each ((?:[A-Z][A-Za-z]*\s)*[A-Z][A-Za-z]*'s(?:\s[A-Z][A-Za-z]*)+)/g;
const DEFINITION =
  /The number of each ((?:[A-Z][A-Za-z]*\s)*[A-Z][A-Za-z]*'s(?:\s[A-Z][A-Za-z]*)+) equals ([^.]*)\./g;
const ASKED = /How many ((?:[A-Z][A-Za-z]*\s?)+) does each ((?:[A-Z][A-Za-z]*\s?)+?) have\?/g;
const NOTE = /\b(?:note|hint)\s*:|\banswer key\b/gi;

export interface TaskCues {
  masbench: boolean;
  sentences: number;
  questionMarks: number;
  asks: number;
  depth: number;
  breadth: number;
  parallel: number;
  notes: number;
  numbers: number;
}

/**
 * Structural cues read from the text. For MASBench-style tasks the definitions are parsed into a
 * quantity graph, giving estimates of the task's depth, breadth and parallel axes; for other text
 * only the surface counts are non-zero.
 */
export function taskCues(text: string): TaskCues {
  const sentences = (text.match(/[^.!?]+[.!?]/g) ?? []).length;
  const questionMarks = (text.match(/\?/g) ?? []).length;
  const numbers = (text.match(/\d+(?:\.\d+)?/g) ?? []).length;
  const notes = (text.match(NOTE) ?? []).length;
  const stated = /Answer these (\d+) questions/.exec(text);
  const deps = new Map<string, string[]>();
  for (const m of text.matchAll(DEFINITION)) {
    const name = (m[1] as string).trim();
    const reads = [...(m[2] as string).matchAll(QUANTITY)].map((q) => (q[1] as string).trim());
    deps.set(name, reads);
  }
  const asked: string[] = [];
  for (const m of text.matchAll(ASKED)) asked.push(`${(m[2] as string).trim()}'s ${(m[1] as string).trim()}`);
  const asks = stated ? Number(stated[1]) : Math.max(asked.length, questionMarks > 0 ? questionMarks : 0);
  const masbench = deps.size >= 2;
  let depth = 0;
  let breadth = 0;
  let parallel = 0;
  if (masbench) {
    for (const r of deps.values()) breadth = Math.max(breadth, r.length);
    const memo = new Map<string, number>();
    const chain = (q: string, seen: Set<string>): number => {
      const known = memo.get(q);
      if (known !== undefined) return known;
      if (seen.has(q)) return 0;
      seen.add(q);
      let d = 0;
      for (const r of deps.get(q) ?? []) d = Math.max(d, chain(r, seen));
      seen.delete(q);
      const v = deps.has(q) ? d + 1 : d;
      memo.set(q, v);
      return v;
    };
    const ancestors = (q: string): Set<string> => {
      const out = new Set<string>([q]);
      const stack = [q];
      while (stack.length > 0) {
        for (const r of deps.get(stack.pop() as string) ?? []) {
          if (!out.has(r)) {
            out.add(r);
            stack.push(r);
          }
        }
      }
      return out;
    };
    for (const q of asked) depth = Math.max(depth, chain(q, new Set()));
    // Asked quantities sharing an ancestor belong to one group (union-find over ≤ 64 asks).
    const groups: Set<string>[] = [];
    for (const q of asked) {
      const anc = ancestors(q);
      const hit = groups.filter((g) => [...anc].some((x) => g.has(x)));
      const merged = new Set<string>(anc);
      for (const g of hit) for (const x of g) merged.add(x);
      for (const g of hit) groups.splice(groups.indexOf(g), 1);
      groups.push(merged);
    }
    parallel = groups.length;
  }
  return { masbench, sentences, questionMarks, asks, depth, breadth, parallel, notes, numbers };
}

export function cueVector(c: TaskCues, out = new Float32Array(CUE_DIM)): Float32Array {
  out[CUE.masbench] = c.masbench ? 1 : 0;
  out[CUE.sentences] = clip01(c.sentences / 32);
  out[CUE.questionMarks] = clip01(c.questionMarks / 12);
  out[CUE.asks] = clip01(c.asks / 12);
  out[CUE.multiAsk] = c.asks > 1 ? 1 : 0;
  out[CUE.depth] = clip01(c.depth / 12);
  out[CUE.breadth] = clip01(c.breadth / 12);
  out[CUE.parallel] = clip01(c.parallel / 12);
  out[CUE.notes] = clip01(c.notes / 12);
  out[CUE.deep] = c.depth >= 3 && c.asks <= 1 ? 1 : 0;
  out[CUE.wide] = c.parallel >= 2 ? 1 : 0;
  out[CUE.numbers] = clip01(c.numbers / 32);
  return out;
}

/** The task part of the state (n-grams and cues): computed once per construction. */
export interface TaskEncoding {
  query: Float32Array;
  cues: Float32Array;
}

/**
 * The encodings of the last tasks seen, by width and text: a trainer encodes each of its B tasks
 * G times per iteration and again for the update. Callers only read an encoding (the state
 * encoder copies it), so one object serves them all.
 */
const recentTasks = new Map<string, TaskEncoding>();
const RECENT_TASKS = 256;

export function encodeTask(text: string, hashDim: number): TaskEncoding {
  const key = `${hashDim}\u0000${text}`;
  const kept = recentTasks.get(key);
  if (kept) return kept;
  const e = { query: hashQuery(text, hashDim), cues: cueVector(taskCues(text)) };
  if (recentTasks.size >= RECENT_TASKS) recentTasks.clear();
  recentTasks.set(key, e);
  return e;
}

// ---------------------------------------------------------------- intermediate answers

/**
 * Answers are compared by their key and refusals told apart by the one answer reader,
 * src/answers (`answerKey`, `isRefusal`), whose readings are frozen because trained checkpoints
 * saw features computed with them. The policy API keeps the names it always had.
 */
export { answerKey as normalizeAnswer, isRefusal };

/** Writes the `RESULT` block (never reads `correct`). */
function encodeResults(
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
  const answer = (r: IntermediateResult | undefined): string | null =>
    r === undefined || r.answer === null || isRefusal(r.answer) ? null : answerKey(r.answer);
  out[at + RESULT.answered] = answered ? 1 : 0;
  out[at + RESULT.refused] = answered && isRefusal(newest.answer as string) ? 1 : 0;
  const a = answered ? answer(newest) : null;
  const b = answer(results[n - 2]);
  out[at + RESULT.agree] = a !== null && a !== '' && a === b ? 1 : 0;
  const distinct = new Set<string>();
  for (const r of results.slice(-3)) {
    const x = answer(r);
    if (x !== null && x !== '') distinct.add(x);
  }
  out[at + RESULT.distinct] = distinct.size / 3;
  out[at + RESULT.recorded] = clip01(n / maxSteps);
}

// ---------------------------------------------------------------- graph

/** Writes the state vector s (layout above) into `out`. */
export function encodeState(
  cfg: EncoderConfig,
  task: TaskEncoding,
  s: ConstructionState,
  out: Float32Array = new Float32Array(stateDim(cfg)),
): Float32Array {
  if (s.pool.roles.length !== cfg.roles)
    throw new Error(`encoder expects ${cfg.roles} roles, the pool has ${s.pool.roles.length}`);
  out.fill(0);
  out.set(task.query.subarray(0, cfg.hashDim), 0);
  out.set(task.cues, cueOffset(cfg));
  const counts = new Array<number>(cfg.roles).fill(0);
  for (const a of s.agents) counts[a.role] = (counts[a.role] ?? 0) + 1;
  const sinks = sinksOf(s.agents);
  const sinkCounts = new Array<number>(cfg.roles).fill(0);
  for (const a of sinks) sinkCounts[a.role] = (sinkCounts[a.role] ?? 0) + 1;
  for (let r = 0; r < cfg.roles; r++) {
    out[roleCountOffset(cfg) + r] = Math.min(counts[r] as number, 4) / 4;
    out[sinkRoleOffset(cfg) + r] = Math.min(sinkCounts[r] as number, 4) / 4;
  }
  out[lastActionOffset(cfg) + (s.lastAction ?? cfg.roles + 2)] = 1;
  const n = cfg.maxAgents;
  const g = graphOffset(cfg);
  const edges = s.agents.reduce((k, a) => k + a.links.length, 0);
  out[g + GRAPH.agents] = clip01(s.agents.length / n);
  out[g + GRAPH.empty] = s.agents.length === 0 ? 1 : 0;
  out[g + GRAPH.depth] = clip01(dagDepth(s.agents) / n);
  out[g + GRAPH.sinks] = clip01(sinks.length / n);
  out[g + GRAPH.starts] = clip01(s.agents.filter((a) => a.links.length === 0).length / n);
  out[g + GRAPH.edges] = clip01(edges / (2 * n));
  out[g + GRAPH.step] = clip01(s.step / cfg.maxSteps);
  out[g + GRAPH.forced] = exitForced(s) ? 1 : 0;
  encodeResults(s.results, s.step, cfg.maxSteps, out, resultOffset(cfg));
  return out;
}

/** Writes one row per agent slot (N rows of `agentDim`); slots past the last agent stay zero. */
export function encodeAgents(
  cfg: EncoderConfig,
  s: ConstructionState,
  out: Float32Array = new Float32Array(cfg.maxAgents * agentDim(cfg)),
): Float32Array {
  out.fill(0);
  encodeAgentRows(cfg, s, out, 0);
  return out;
}

/**
 * Writes the rows of the state's agents (at most N) from row `first` of `out` on, the rows of
 * `encodeAgents` without the empty slots; returns how many rows it wrote.
 */
export function encodeAgentRows(
  cfg: EncoderConfig,
  s: ConstructionState,
  out: Float32Array,
  first: number,
): number {
  const w = agentDim(cfg);
  const f = agentFlagOffset(cfg);
  const n = cfg.maxAgents;
  const agents = s.agents.slice(0, n);
  out.fill(0, first * w, (first + agents.length) * w);
  const readers = new Map<string, number>();
  for (const a of s.agents) for (const l of a.links) readers.set(l, (readers.get(l) ?? 0) + 1);
  const latest = s.changed[s.changed.length - 1];
  agents.forEach((a, i) => {
    const row = (first + i) * w;
    const outDeg = readers.get(a.id) ?? 0;
    out[row] = 1;
    out[row + 1 + a.role] = 1;
    out[row + f + AGENT.latest] = a.id === latest ? 1 : 0;
    out[row + f + AGENT.sink] = outDeg === 0 ? 1 : 0;
    out[row + f + AGENT.start] = a.links.length === 0 ? 1 : 0;
    out[row + f + AGENT.depth] = clip01(a.depth / n);
    out[row + f + AGENT.outDegree] = clip01(outDeg / n);
    out[row + f + AGENT.inDegree] = clip01(a.links.length / n);
    out[row + f + AGENT.age] = clip01((s.step - a.addedAt) / cfg.maxSteps);
  });
  return agents.length;
}
