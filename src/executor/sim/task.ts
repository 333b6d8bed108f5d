/**
 * What the simulator knows about a MASBench task and how it reads an agent's assignment: which
 * sub-tasks it is asked for, and which answers it has been handed by upstream agents.
 */
import type { MasBenchTask } from '../../masbench/index.ts';
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
}

export interface SimTask {
  task: MasBenchTask;
  byId: ReadonlyMap<string, SimSubtask>;
  /** Sub-task ids in dependency order. */
  order: readonly string[];
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
    byId.set(s.id, {
      id: s.id,
      deps: s.deps,
      answer: s.answer,
      item,
      owner,
      name: `each ${owner}'s ${item}`,
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
  return { task, byId, order, modulus: task.modulus };
}

/** The statement the simulator writes for a value it computed or was given. */
export function valueSentence(s: Pick<SimSubtask, 'name'>, value: number): string {
  return `The number of ${s.name} is ${value}.`;
}

/** Values stated as "each Owner's Item is N" in `text` (the last statement wins). */
export function knownValues(sim: SimTask, text: string): Map<string, number> {
  const known = new Map<string, number>();
  for (const s of sim.byId.values()) {
    const re = new RegExp(`${escape(s.name)} is (-?\\d+)`, 'g');
    let last: string | undefined;
    for (const m of text.matchAll(re)) last = m[1];
    if (last !== undefined) known.set(s.id, Number(last));
  }
  return known;
}

/**
 * The sub-tasks an assignment asks for. The whole task (its asked sub-tasks) when the input is
 * the original question. Otherwise, in the sub-task text with given values and boxed answers
 * removed: sub-task ids (`s3`) or questions ("how many Item does each Owner…", "Item per Owner")
 * first; else quantities named as "Owner's Item", keeping only those no other named one depends
 * on; else, when nothing is named, the whole task.
 */
export function targetsOf(sim: SimTask, input: string): string[] {
  const part = subtaskPart(input);
  if (part === null) return [...sim.task.asks];
  const text = part
    .replace(/The number of each [^.]*? is -?\d+\./g, ' ')
    .replace(/\\boxed\{[^{}]*\}/g, ' ')
    .replace(/\[no output: agent [^\]]*\]/g, ' ');
  const lower = text.toLowerCase();
  const direct: string[] = [];
  for (const id of sim.order) {
    const s = sim.byId.get(id);
    if (!s) continue;
    const item = s.item.toLowerCase();
    const owner = s.owner.toLowerCase();
    const byId = new RegExp(`(^|[^A-Za-z0-9_])${escape(id)}(?![A-Za-z0-9_])`).test(text);
    const asked =
      lower.includes(`many ${item} does each ${owner}`) ||
      lower.includes(`many ${item} each ${owner}`) ||
      lower.includes(`${item} per ${owner}`);
    if (byId || asked) direct.push(id);
  }
  if (direct.length > 0) return direct;
  const named = sim.order.filter((id) => {
    const s = sim.byId.get(id);
    return s !== undefined && lower.includes(`${s.owner}'s ${s.item}`.toLowerCase());
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
