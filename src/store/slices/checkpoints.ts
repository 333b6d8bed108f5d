/**
 * The policy checkpoints the Build page can use: the names kept in this browser, loading a
 * `baton.policy/1` file (parsed, shape-checked, held to the role pool in use, then kept and
 * selected), saving the selected checkpoint to a file, and forgetting a kept one.
 */
import { readFileText, type TextSource } from '../services/files.ts';
import { checkpointFromText, serializeCheckpointFor } from '../services/policy-checkpoints.ts';
import type { SliceCreator } from '../store.ts';
import { buildEnv } from './build-env.ts';

export interface CheckpointsSlice {
  /** Names of the checkpoints kept in this browser. */
  buildCheckpoints: string[];
  /**
   * Bumped whenever a kept checkpoint is written or removed: a file may replace a checkpoint of the
   * same name, and the Build slice compiles a policy again when this changes.
   */
  buildCheckpointRevision: number;
  /** Reads the names of the kept checkpoints. */
  initBuildCheckpoints(): Promise<void>;
  /** Loads a checkpoint file, keeps it in storage and selects it. */
  loadCheckpointFile(file: TextSource): Promise<void>;
  /** The selected checkpoint as a `baton.policy/1` file: name and text, or null with a problem. */
  exportBuildCheckpoint(): Promise<{ name: string; text: string } | null>;
  /** Forgets a checkpoint kept in this browser. */
  removeCheckpoint(name: string): Promise<void>;
}

export const createCheckpointsSlice: SliceCreator<CheckpointsSlice> = (set, get) => ({
  buildCheckpoints: [],
  buildCheckpointRevision: 0,

  async initBuildCheckpoints() {
    const r = await buildEnv().storage.list();
    if (r.ok) set({ buildCheckpoints: r.value });
    else set({ buildProblems: r.errors });
  },

  async loadCheckpointFile(file) {
    const text = await readFileText(file);
    if (!text.ok) {
      set({ buildProblems: text.errors });
      return;
    }
    const cp = checkpointFromText(text.value, get().buildPool);
    if (!cp.ok) {
      set({ buildProblems: cp.errors });
      return;
    }
    const saved = await buildEnv().storage.save(cp.value);
    const names = [...new Set([...get().buildCheckpoints, cp.value.name])].sort();
    set({
      buildCheckpoints: names,
      buildCheckpointRevision: get().buildCheckpointRevision + 1,
      buildForm: { ...get().buildForm, policy: { kind: 'checkpoint', name: cp.value.name } },
      buildProblems: saved.ok ? [] : saved.errors,
    });
  },

  async exportBuildCheckpoint() {
    const r = await serializeCheckpointFor(get().buildForm.policy, buildEnv().storage, get().buildPool);
    if (!r.ok) {
      set({ buildProblems: r.errors });
      return null;
    }
    return r.value;
  },

  async removeCheckpoint(name) {
    const r = await buildEnv().storage.remove(name);
    if (!r.ok) {
      set({ buildProblems: r.errors });
      return;
    }
    const f = get().buildForm;
    set({
      buildCheckpoints: get().buildCheckpoints.filter((n) => n !== name),
      buildCheckpointRevision: get().buildCheckpointRevision + 1,
      ...(f.policy.kind === 'checkpoint' && f.policy.name === name
        ? { buildForm: { ...f, policy: { kind: 'prior' } } }
        : {}),
    });
  },
});
