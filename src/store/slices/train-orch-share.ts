/**
 * "Share link" of the Train page's orchestrator mode, and the read-only view of a shared
 * orchestrator run (`#r=1.…` whose record is `baton.orchrun/1`). Loaded with the views that use it
 * (the orchestrator panel and the shared-run page), never with the first page: the state it sets
 * (`orchTrain.shareLink`, `orchShared`) is optional in train-orch.ts, and `orchShareActions` binds
 * its actions to the store a view passes.
 */
import { problemOf } from '../../core/errors.ts';
import {
  buildOrchRunLink,
  readOrchRunLink,
  weightsNote,
  type OrchRunLink,
} from '../services/train-orch-share.ts';
import type { BatonState } from '../store.ts';
import type { OrchShared } from './train-orch.ts';

export { weightsNote, type OrchRunLink, type OrchShared };
export { weightsInLink } from '../services/train-orch-share.ts';
export { orchestratorCurves, type OrchCurves, type OrchRunRecord } from '../../train/orchestrator-record.ts';

type Set = (partial: Partial<BatonState>) => void;
type Get = () => BatonState;

/** Makes the run's link (`base`: the page's address); the link, or null with the problem shown. */
export async function shareOrchRun(set: Set, get: Get, base: string): Promise<OrchRunLink | null> {
  const problem = (detail: string): null => {
    set({ orchTrain: { ...get().orchTrain, problems: [problemOf('E_TRAIN_LINK', detail)] } });
    return null;
  };
  if (get().orchTrain.iteration === 0) return problem('train at least one iteration first');
  // After a reload the worker holds nothing yet: the saved run tells the model and config.
  if (!get().orchTrain.model || !get().orchTrain.config) {
    const { ensureLive } = await import('./train-orch-run.ts');
    if (!(await ensureLive(set, get))) return null;
  }
  const t = get().orchTrain;
  if (!t.model || !t.config) return problem('the run has no model or config yet');
  const r = buildOrchRunLink(
    {
      model: t.model,
      backend: t.backend,
      config: t.config,
      iteration: t.iteration,
      history: t.history,
      evaluation: t.evaluation,
      sampled: t.sampled,
    },
    base,
  );
  if (!r.ok) {
    set({ orchTrain: { ...get().orchTrain, problems: r.errors } });
    return null;
  }
  set({ orchTrain: { ...get().orchTrain, shareLink: r.value, problems: [] } });
  return r.value;
}

/**
 * Decodes `#r=…` for the read-only view when it is an orchestrator run's (the same input again is a
 * no-op); answers `other` for any other link, which the construction-policy view reads.
 */
export function openOrchRunLink(set: Set, get: Get, input: string): 'orchestrator' | 'other' {
  const known = get().orchShared;
  if (known?.input === input) return 'other' in known ? 'other' : 'orchestrator';
  const r = readOrchRunLink(input);
  const shared: OrchShared =
    r === null ? { input, other: true } : r.ok ? { input, record: r.value } : { input, problems: r.errors };
  set({ orchShared: shared });
  return r === null ? 'other' : 'orchestrator';
}

/**
 * The actions above on a store (the views pass the app's `useBaton`; this module does not import
 * it, which would tie the lazily loaded chunk into the first page's).
 */
export function orchShareActions(store: { setState: Set; getState: Get }): {
  share: (base: string) => Promise<OrchRunLink | null>;
  open: (input: string) => 'orchestrator' | 'other';
} {
  return {
    share: (base) => shareOrchRun(store.setState, store.getState, base),
    open: (input) => openOrchRunLink(store.setState, store.getState, input),
  };
}
