/**
 * What the Evaluate page's pickers offer and how a pick edits the draft's method and axis lists
 * (the draft keeps the command line's words, `cot,sc,policy:prior` and `depth:2,6,robustness:4`,
 * so results files, the journal and `baton eval` read the same). Pure.
 *
 * Methods on offer are the archive agents, the built-in policies (prior, random:0; greedy or
 * sampled), every checkpoint saved in this browser (Build's, and the ones Train keeps, the last
 * trained included), the Settings provider as the orchestrator (`orchestrator:provider`, on the
 * provider backend: its endpoint writes each task's design) and the orchestrator models of the
 * manifest: those this build ships run in the evaluation worker (src/workers/eval.models.ts); hub
 * models are listed but not selectable (an evaluation does not download them).
 */
import {
  ARCHIVE_AGENTS,
  ARCHIVE_METHODS,
  parseAxes,
  parseMethodWords,
  isProviderOrchestrator,
  type Method,
  type MethodWord,
} from '../../eval/index.ts';
import { AXES } from '../../masbench/index.ts';
import type { BatonState } from '../store.ts';

export interface MethodChoice {
  /** The method's words as the draft holds them. */
  id: string;
  label: string;
  /** Why it cannot be picked, or null. */
  unavailable: string | null;
}

export interface MethodGroup {
  title: string;
  choices: MethodChoice[];
}

/** A method word's id (`policy:prior:greedy`, `orchestrator:<model>`, `cot`). */
export function wordId(w: MethodWord): string {
  switch (w.kind) {
    case 'agent':
      return w.agent;
    case 'policy':
      return `policy:${w.checkpoint}:${w.greedy ? 'greedy' : 'sampled'}`;
    case 'design':
      return `design:${w.file}`;
    case 'orchestrator':
      return `orchestrator:${w.model}`;
  }
}

/** The ids of a method list, in its order; an unreadable list is empty. */
export function methodIds(text: string): string[] {
  const r = parseMethodWords(text);
  return r.ok ? r.words.map(wordId) : [];
}

/** The list with `id` switched on or off (order kept, a new one appended). */
export function toggleMethod(text: string, id: string, on: boolean): string {
  const ids = methodIds(text).filter((x) => x !== id);
  if (on) ids.push(id);
  return ids.join(',');
}

/**
 * Whether the page runs a method on its tasks: an in-tab orchestrator runs when it is `tiny` or one
 * of `shipped` (the manifest's models served with this build); a hub model is skipped.
 */
export function runsOnPage(m: Method, shipped: readonly string[] = []): boolean {
  if (m.kind !== 'orchestrator') return true;
  const model = m.model;
  return isProviderOrchestrator(m) || model === 'tiny' || shipped.includes(model);
}

/** The manifest's models this build serves (the ones the page's evaluation can run). */
export const shippedModels = (s: Pick<BatonState, 'orchModels'>): string[] =>
  s.orchModels.status === 'ready'
    ? s.orchModels.entries.filter((e) => e.source === 'offline').map((e) => e.id)
    : [];

/** Why a hub model cannot be picked on the page. */
export const HUB_MODEL_NEEDS =
  'downloads from the Hugging Face hub: the page evaluates the models this build ships (baton eval runs hub models, or load it on the Orchestrate page)';

/** Why `orchestrator:provider` cannot be picked on this backend, or null. */
export const PROVIDER_ORCHESTRATOR_NEEDS =
  "needs the provider backend: the endpoint set up in Settings writes each task's design";

export function methodGroups(
  s: Pick<BatonState, 'buildCheckpoints' | 'orchModels'> & { backend: 'simulator' | 'provider' },
): MethodGroup[] {
  const policy = (checkpoint: string, label: string): MethodChoice[] => [
    { id: `policy:${checkpoint}:greedy`, label: `${label} (greedy)`, unavailable: null },
    { id: `policy:${checkpoint}:sampled`, label: `${label} (sampled)`, unavailable: null },
  ];
  const provider: MethodChoice = {
    id: 'orchestrator:provider',
    label: 'Provider from Settings (writes the design, repaired)',
    unavailable: s.backend === 'provider' ? null : PROVIDER_ORCHESTRATOR_NEEDS,
  };
  const models: MethodChoice[] =
    s.orchModels.status === 'ready'
      ? s.orchModels.entries.map((e) => ({
          id: `orchestrator:${e.id}`,
          label: e.label,
          unavailable: e.source === 'offline' ? null : HUB_MODEL_NEEDS,
        }))
      : [];
  return [
    {
      title: 'Archive agents',
      choices: ARCHIVE_METHODS.map((m) => ({ id: m, label: ARCHIVE_AGENTS[m].label, unavailable: null })),
    },
    {
      title: 'Construction policies',
      choices: [...policy('prior', 'Prior (hand-set)'), ...policy('random:0', 'Random (untrained, seed 0)')],
    },
    {
      title: 'Saved checkpoints',
      choices: s.buildCheckpoints.flatMap((name) => policy(name, name)),
    },
    { title: 'Orchestrators', choices: [provider, ...models] },
  ];
}

/** Saved-checkpoint names a method list asks for (not prior or random:S). */
export function savedCheckpointsOf(text: string): string[] {
  const r = parseMethodWords(text);
  if (!r.ok) return [];
  const names = r.words.flatMap((w) =>
    w.kind === 'policy' && w.checkpoint !== 'prior' && !/^random(:\d+)?$/.test(w.checkpoint)
      ? [w.checkpoint]
      : [],
  );
  return [...new Set(names)];
}

export type AxisName = (typeof AXES)[number];
/** The values a MASBench axis takes (2..12). */
export const AXIS_VALUES: readonly number[] = Array.from({ length: 11 }, (_, i) => i + 2);
export { AXES };

/** The picked values per axis of an axes list; an unreadable list picks nothing. */
export function axesPicked(text: string): Record<AxisName, number[]> {
  const out = Object.fromEntries(AXES.map((a) => [a, [] as number[]])) as Record<AxisName, number[]>;
  const r = parseAxes(text);
  if (r.ok) for (const a of r.axes) out[a.axis] = [...a.values];
  return out;
}

/** The axes list with one value switched on or off, axes and values in their canonical order. */
export function toggleAxisValue(text: string, axis: AxisName, value: number, on: boolean): string {
  const picked = axesPicked(text);
  const set = new Set(picked[axis]);
  if (on) set.add(value);
  else set.delete(value);
  picked[axis] = [...set];
  return AXES.flatMap((a) => {
    const vs = [...picked[a]].sort((x, y) => x - y);
    return vs.length === 0 ? [] : [`${a}:${vs.join(',')}`];
  }).join(',');
}
