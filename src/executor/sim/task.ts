/**
 * What the simulator knows about a MASBench task and how it reads an agent's assignment: which
 * sub-tasks it is asked for, and which answers it has been handed by upstream agents.
 */
import { lastBoxed } from '../../answers/index.ts';
import { neededSubtaskIds, type MasBenchTask } from '../../masbench/index.ts';
import { subtaskPart } from '../input.ts';

export interface SimSubtask {
  id: string;
  deps: readonly string[];
  answer: number;
  /** "each Owner's Item", as sentences name the quantity. */
  name: string;
  item: string;
  owner: string;
  /** The misleading note and the value it claims, when the sub-task has one. */
  note?: { text: string; claims: number | null };
  /** `<name> is N` (global): a stated value, compiled once per task (`knownValues` runs per call). */
  statedRe: RegExp;
  /** The sub-task's id as a word (`targetsOf` reads it with `namesId`, a search without a scan). */
  idRe: RegExp;
  /**
   * `targetsOf`'s lower-case phrases, built once per task exactly as it would build them per call:
   * the three ways of asking for the quantity, and "Owner's Item".
   */
  askedPhrases: readonly [string, string, string];
  namedPhrase: string;
}

export interface SimTask {
  task: MasBenchTask;
  byId: ReadonlyMap<string, SimSubtask>;
  /** Sub-task ids in dependency order. */
  order: readonly string[];
  /** The sub-tasks the asked ones need (the asked ones included; distractors left out). */
  needed: ReadonlySet<string>;
  modulus: number;
}

const ASK_RE = /How many (.+?) does each (.+?) have\?\s*$/;

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function prepareTask(task: MasBenchTask): SimTask {
  const byId = new Map<string, SimSubtask>();
  for (const s of task.subtasks) {
    const m = ASK_RE.exec(s.question);
    const item = m?.[1] ?? s.id;
    const owner = m?.[2] ?? s.id;
    const claims = s.note ? /(-?\d+)\D*$/.exec(s.note)?.[1] : undefined;
    const lowerItem = item.toLowerCase();
    const lowerOwner = owner.toLowerCase();
    byId.set(s.id, {
      id: s.id,
      deps: s.deps,
      answer: s.answer,
      item,
      owner,
      name: `each ${owner}'s ${item}`,
      statedRe: new RegExp(`${escape(`each ${owner}'s ${item}`)} is (-?\\d+)`, 'g'),
      idRe: new RegExp(`(^|[^A-Za-z0-9_])${escape(s.id)}(?![A-Za-z0-9_])`),
      askedPhrases: [
        `many ${lowerItem} does each ${lowerOwner}`,
        `many ${lowerItem} each ${lowerOwner}`,
        `${lowerItem} per ${lowerOwner}`,
      ],
      namedPhrase: `${owner}'s ${item}`.toLowerCase(),
      ...(s.note ? { note: { text: s.note, claims: claims !== undefined ? Number(claims) : null } } : {}),
    });
  }
  const order: string[] = [];
  const seen = new Set<string>();
  const visit = (id: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const d of byId.get(id)?.deps ?? []) visit(d);
    order.push(id);
  };
  for (const s of task.subtasks) visit(s.id);
  return { task, byId, order, needed: neededSubtaskIds(task), modulus: task.modulus };
}

/**
 * `prepareTask` once per task object: the runners of one task's episodes (a training group, G
 * seeds) share it, and with it the memo of what each input asks for and hands over (`memo`), which
 * does not depend on the seed. Tasks are not changed once generated.
 */
const prepared = new WeakMap<MasBenchTask, SimTask>();

export function preparedTask(task: MasBenchTask): SimTask {
  let sim = prepared.get(task);
  if (!sim) {
    sim = prepareTask(task);
    prepared.set(task, sim);
  }
  return sim;
}

/** The question that asks for a sub-task's quantity, as the task words it. */
export function questionFor(s: Pick<SimSubtask, 'item' | 'owner'>): string {
  return `How many ${s.item} does each ${s.owner} have?`;
}

/**
 * Lines of a plan the simulator writes (a Decomposer's sub-questions, a Planner's work items). A
 * plan names every quantity of the task, but it does not narrow an assignment: agents that read
 * one still work on the whole task, so `targetsOf` skips these lines.
 */
export const PLAN_LINE = /^(?:Sub-question|Work item): [^\n]*$/gm;

/** `PLAN_LINE` without the global flag, compiled once (`test` then keeps no state). */
const PLAN_LINE_ONCE = new RegExp(PLAN_LINE.source, 'm');

/** True when the text holds a plan the simulator wrote (a list of sub-questions or work items). */
export const holdsPlan = (text: string): boolean => PLAN_LINE_ONCE.test(text);

/**
 * True when an agent's inputs propose an answer: a boxed answer or a stated value in the part of
 * its input that other agents wrote (the original question proposes none).
 */
export function inputProposesAnswer(sim: SimTask, input: string): boolean {
  const part = subtaskPart(input);
  return part !== null && (lastBoxed(part) !== null || readKnownValues(sim, part).size > 0);
}

/**
 * The independent parts of the task: its asked sub-tasks grouped so that two asks are in one part
 * when their computations share a sub-task (a Planner's work items), in the order asked.
 */
export function partsOf(sim: SimTask): string[][] {
  const closure = (id: string): Set<string> => {
    const seen = new Set<string>();
    const todo = [id];
    for (let x = todo.pop(); x !== undefined; x = todo.pop()) {
      if (seen.has(x)) continue;
      seen.add(x);
      todo.push(...(sim.byId.get(x)?.deps ?? []));
    }
    return seen;
  };
  const asks = sim.task.asks;
  const uses = asks.map(closure);
  // Union-find over the asks: the part of ask i is the ask at the root of its tree.
  const parent = asks.map((_, i) => i);
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i] as number;
    return i;
  };
  for (let i = 0; i < asks.length; i++) {
    for (let j = i + 1; j < asks.length; j++) {
      const shared = [...(uses[j] as Set<string>)].some((u) => uses[i]?.has(u));
      if (shared) parent[root(j)] = root(i);
    }
  }
  const parts = new Map<number, string[]>();
  asks.forEach((ask, i) => {
    const r = root(i);
    parts.set(r, [...(parts.get(r) ?? []), ask]);
  });
  return [...parts.values()];
}

/** The statement the simulator writes for a value it computed or was given. */
export function valueSentence(s: Pick<SimSubtask, 'name'>, value: number): string {
  return `The number of ${s.name} is ${value}.`;
}

/** Values stated as "each Owner's Item is N" in `text` (the last statement wins). */
export function knownValues(sim: SimTask, text: string): Map<string, number> {
  return new Map(readKnownValues(sim, text));
}

/** `knownValues` without the copy: the memo's own map, for readers that do not change it. */
export function readKnownValues(sim: SimTask, text: string): ReadonlyMap<string, number> {
  const r = readingsOf(sim, text);
  return (r.known ??= knownValuesOf(sim, text));
}

/** What `readTargets` and `readKnownValues` give for one text, with one look-up of the text. */
export function readInput(
  sim: SimTask,
  text: string,
): { targets: readonly string[]; given: ReadonlyMap<string, number> } {
  const r = readingsOf(sim, text);
  return { targets: (r.targets ??= targetsOfText(sim, text)), given: (r.known ??= knownValuesOf(sim, text)) };
}

/** What was read from one text (each part on first use). */
interface Readings {
  known?: ReadonlyMap<string, number>;
  targets?: readonly string[];
}

/**
 * Per task, what `knownValues` and `targetsOf` found in each text: an agent's calls share one
 * input, and training runs the same agents' inputs again and again, so each is parsed once. Both
 * readings of a text sit in one entry: a look-up hashes and compares the whole text (about 1.5 KB
 * in training), so a call that wants both looks it up once.
 */
const memos = new WeakMap<SimTask, Map<string, Readings>>();

/** A memo table is emptied when it reaches this many texts (a task kept for a long time). */
const MEMO_LIMIT = 20_000;

function readingsOf(sim: SimTask, text: string): Readings {
  let table = memos.get(sim);
  if (!table) {
    table = new Map();
    memos.set(sim, table);
  }
  let r = table.get(text);
  if (r === undefined) {
    if (table.size >= MEMO_LIMIT) table.clear();
    r = {};
    table.set(text, r);
  }
  return r;
}

/**
 * What `knownValues` finds, in one pass: every `statedRe` match ends in " is " and a number, so
 * the text is searched once for those, and a sub-task's statement is one whose name ends right
 * before. Per name, statements are taken left to right without overlap and the last one wins, as
 * a global scan with `statedRe` takes them (`knownValuesScanned`, the reference, tested equal).
 */
function knownValuesOf(sim: SimTask, text: string): Map<string, number> {
  let last: Map<SimSubtask, string> | null = null;
  let ends: Map<SimSubtask, number> | null = null;
  for (let q = text.indexOf(' is '); q !== -1; q = text.indexOf(' is ', q + 1)) {
    const value = numberAt(text, q + 4);
    if (value === null) continue;
    for (const s of sim.byId.values()) {
      const start = q - s.name.length;
      if (start < 0 || !text.startsWith(s.name, start)) continue;
      if (start < (ends?.get(s) ?? 0)) continue;
      (last ??= new Map()).set(s, value);
      (ends ??= new Map()).set(s, q + 4 + value.length);
    }
  }
  const known = new Map<string, number>();
  if (last === null) return known;
  for (const s of sim.byId.values()) {
    const v = last.get(s);
    if (v !== undefined) known.set(s.id, Number(v));
  }
  return known;
}

const isDigit = (text: string, i: number): boolean => {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
};

/** The text `-?\d+` matches at `i` (greedy, ASCII digits), or null. */
function numberAt(text: string, i: number): string | null {
  const from = text.charCodeAt(i) === 45 && isDigit(text, i + 1) ? i + 1 : i;
  let j = from;
  while (isDigit(text, j)) j++;
  return j === from ? null : text.slice(i, j);
}

/** `knownValues` by a global `statedRe` scan per sub-task: the reference for `knownValuesOf`. */
export function knownValuesScanned(sim: SimTask, text: string): Map<string, number> {
  const known = new Map<string, number>();
  for (const s of sim.byId.values()) {
    let last: string | undefined;
    for (const m of text.matchAll(s.statedRe)) last = m[1];
    if (last !== undefined) known.set(s.id, Number(last));
  }
  return known;
}

const isWordUnit = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

/**
 * True when `idRe` matches: the id occurs with no ASCII word character (`[A-Za-z0-9_]`) right
 * before or after it. Found with `indexOf` rather than the pattern, which tries every position.
 */
export function namesId(text: string, s: Pick<SimSubtask, 'id' | 'idRe'>): boolean {
  const id = s.id;
  if (id === '') return s.idRe.test(text);
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    const before = at === 0 || !isWordUnit(text.charCodeAt(at - 1));
    const end = at + id.length;
    if (before && (end === text.length || !isWordUnit(text.charCodeAt(end)))) return true;
  }
  return false;
}

/**
 * The sub-tasks an assignment asks for. The whole task (its asked sub-tasks) when the input is
 * the original question. Otherwise, in the sub-task text with given values, boxed answers and
 * plan lines removed: sub-task ids (`s3`) or questions ("how many Item does each Owner…", "Item per Owner")
 * first; else quantities named as "Owner's Item", keeping only those no other named one depends
 * on; else, when nothing is named, the whole task.
 */
export function targetsOf(sim: SimTask, input: string): string[] {
  return [...readTargets(sim, input)];
}

/** `targetsOf` without the copy: the memo's own array (the same one for the same text). */
export function readTargets(sim: SimTask, input: string): readonly string[] {
  const r = readingsOf(sim, input);
  return (r.targets ??= targetsOfText(sim, input));
}

function targetsOfText(sim: SimTask, input: string): string[] {
  const part = subtaskPart(input);
  if (part === null) return [...sim.task.asks];
  // Each pattern is tried only where its literal start occurs (a text without it is left as is).
  let text = part;
  if (text.includes('Sub-question: ') || text.includes('Work item: ')) text = text.replace(PLAN_LINE, ' ');
  if (text.includes('The number of each ')) text = text.replace(/The number of each [^.]*? is -?\d+\./g, ' ');
  if (text.includes('\\boxed{')) text = text.replace(/\\boxed\{[^{}]*\}/g, ' ');
  if (text.includes('[no output: agent ')) text = text.replace(/\[no output: agent [^\]]*\]/g, ' ');
  const lower = text.toLowerCase();
  const direct: string[] = [];
  for (const id of sim.order) {
    const s = sim.byId.get(id);
    if (!s) continue;
    const [does, each, per] = s.askedPhrases;
    const byId = namesId(text, s);
    const asked = lower.includes(does) || lower.includes(each) || lower.includes(per);
    if (byId || asked) direct.push(id);
  }
  if (direct.length > 0) return direct;
  const named = sim.order.filter((id) => {
    const s = sim.byId.get(id);
    return s !== undefined && lower.includes(s.namedPhrase);
  });
  if (named.length === 0) return [...sim.task.asks];
  const ancestors = new Set<string>();
  const addAncestors = (id: string): void => {
    for (const d of sim.byId.get(id)?.deps ?? []) {
      if (!ancestors.has(d)) {
        ancestors.add(d);
        addAncestors(d);
      }
    }
  };
  for (const id of named) addAncestors(id);
  return named.filter((id) => !ancestors.has(id));
}
