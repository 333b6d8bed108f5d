import { useState, type JSX } from 'react';
import type { BuildForm } from '../../store/construction.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { ExecutionFields } from './ExecutionFields.tsx';
import { PolicyFields } from './PolicyFields.tsx';
import { RolePoolEditor } from './RolePoolEditor.tsx';
import { TaskFields } from './TaskFields.tsx';

const selectForm = (s: BatonState): BuildForm => s.buildForm;
const selectLoading = (s: BatonState): boolean => s.buildLoading;
const selectStarted = (s: BatonState): boolean => s.buildSession !== null;
const selectPool = (s: BatonState): BatonState['buildPool'] => s.buildPool;
const selectPools = (s: BatonState): BatonState['buildPools'] => s.buildPools;

/** Task, policy, temperature and seed; Start (re)opens an empty construction with them. */
export function SetupPanel(): JSX.Element {
  const form = useBaton(selectForm);
  const loading = useBaton(selectLoading);
  const started = useBaton(selectStarted);
  const setForm = useBaton((s) => s.setBuildForm);
  const start = useBaton((s) => s.startBuild);
  const [editingRoles, setEditingRoles] = useState(false);
  const pool = useBaton(selectPool);
  const pools = useBaton(selectPools);
  const applyPool = useBaton((s) => s.applyBuildPool);
  const loadPool = useBaton((s) => s.loadBuildPool);
  const readPoolFile = useBaton((s) => s.readRolePoolFile);

  return (
    <>
      <form
        className="build-setup"
        data-testid="build-setup"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <TaskFields form={form} setForm={setForm} />
        <PolicyFields form={form} setForm={setForm} onEditRoles={() => setEditingRoles(true)} />
        <ExecutionFields form={form} setForm={setForm} />
        <button type="submit" className="btn btn-primary" disabled={loading} data-testid="build-start">
          {loading ? 'Loading policy…' : started ? 'Restart with these settings' : 'Start building'}
        </button>
      </form>
      {editingRoles && (
        <RolePoolEditor
          pool={pool}
          saved={pools}
          onApply={(p) => void applyPool(p)}
          onLoadVersion={(v) => void loadPool(v)}
          onReadFile={readPoolFile}
          onClose={() => setEditingRoles(false)}
        />
      )}
    </>
  );
}
