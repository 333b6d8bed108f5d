import { useEffect, useId, useMemo, useRef, useState, type JSX } from 'react';
import type { Result } from '../../core/result.ts';
import {
  checkDraft,
  draftOf,
  editDraft,
  serializeRolePool,
  withContentVersion,
  type PoolDraft,
  type PoolEdit,
  type RolePool,
} from '../../store/construction.ts';
import { plural } from '../common/format.ts';
import { downloadText } from '../share/download.ts';
import { RolePoolEditorView, type EditorNotice } from './RolePoolEditorView.tsx';
import type { SavedPool } from './SavedPools.tsx';
import './roles.css';

export type { SavedPool };

export interface RolePoolEditorProps {
  /** The pool in use. When it changes (applied, loaded), the editor starts over from it. */
  pool: RolePool;
  saved: SavedPool[];
  /** A valid pool, its version derived from its content. */
  onApply(pool: RolePool): void;
  onLoadVersion(version: string): void;
  /** Reads a `baton.roles/1` file into a pool (the store's `readRolePoolFile`). */
  onReadFile(file: File): Promise<Result<RolePool>>;
  onClose(): void;
}

/** `baton.roles/1+1a2b3c4d` → `baton-roles-1-1a2b3c4d.json`. */
export const poolFileName = (version: string): string =>
  `${version.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-+|-+$/g, '')}.json`;

/** The element to focus after an edit, so keyboard users stay where they were. */
function focusAfter(d: PoolDraft, e: PoolEdit, idPrefix: string): string | null {
  const key = (i: number): number | undefined => d.roles[i]?.key;
  switch (e.type) {
    case 'add':
      return `${idPrefix}-r${key(d.selected)}-name`;
    case 'move': {
      const at = e.index + e.by;
      // The moved role's same arrow, or the other one once it reaches an end.
      const dir = (e.by < 0 && at === 0) || (e.by > 0 && at === d.roles.length - 1) ? -e.by : e.by;
      return `${idPrefix}-r${key(at)}-${dir < 0 ? 'up' : 'down'}`;
    }
    case 'remove':
      return `${idPrefix}-r${key(d.selected)}-pick`;
    default:
      return null;
  }
}

/**
 * The role pool editor: a modal dialog (native `<dialog>`: focus moves into it, Esc closes it,
 * focus returns to the opener) listing the roles of a draft of the pool in use. Apply hands the
 * edited pool, versioned by its content, to `onApply`; nothing changes before that. Import reads a
 * `baton.roles/1` file into the draft; Export downloads the draft as one.
 */
export function RolePoolEditor({
  pool,
  saved,
  onApply,
  onLoadVersion,
  onReadFile,
  onClose,
}: RolePoolEditorProps): JSX.Element {
  const dialog = useRef<HTMLDialogElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const focusTarget = useRef<string | null>(null);
  const idPrefix = `roles${useId().replace(/[^A-Za-z0-9_-]/g, '')}`;
  const inUse = useMemo(() => withContentVersion(pool).version, [pool]);
  const [base, setBase] = useState(inUse);
  const [draft, setDraft] = useState(() => draftOf(pool));
  const [notice, setNotice] = useState<EditorNotice | null>(null);
  // The pool in use changed (applied or loaded): start over from it, keeping the selected row.
  if (base !== inUse) {
    setBase(inUse);
    setDraft((d) => draftOf(pool, d.selected));
  }
  const check = useMemo(() => checkDraft(draft), [draft]);

  useEffect(() => {
    const d = dialog.current;
    if (d && !d.open) d.showModal();
  }, []);

  useEffect(() => {
    const id = focusTarget.current;
    if (!id) return;
    focusTarget.current = null;
    document.getElementById(id)?.focus();
  });

  const edit = (e: PoolEdit): void => {
    const next = editDraft(draft, e);
    focusTarget.current = focusAfter(next, e, idPrefix);
    setDraft(next);
  };

  const importFile = async (file: File): Promise<void> => {
    const parsed = await onReadFile(file);
    if (!parsed.ok) {
      setNotice({ kind: 'error', title: `${file.name} could not be imported`, problems: parsed.errors });
      return;
    }
    setDraft((d) => editDraft(d, { type: 'replace', pool: parsed.value }));
    setNotice({
      kind: 'ok',
      message: `Imported ${file.name} (${parsed.value.version}, ${plural(parsed.value.roles.length, 'role')}). Apply to use it.`,
      warnings: parsed.warnings,
    });
  };

  return (
    <dialog
      ref={dialog}
      className="dialog roles-dialog"
      aria-labelledby={`${idPrefix}-title`}
      onClose={onClose}
      data-testid="roles-dialog"
    >
      <RolePoolEditorView
        pool={pool}
        draft={draft}
        check={check}
        saved={saved}
        notice={notice}
        idPrefix={idPrefix}
        titleId={`${idPrefix}-title`}
        onEdit={edit}
        onApply={() => {
          if (check.problems.length === 0) onApply(check.pool);
        }}
        onLoadVersion={onLoadVersion}
        onImport={() => fileInput.current?.click()}
        onExport={() => {
          if (check.problems.length === 0)
            downloadText(poolFileName(check.pool.version), serializeRolePool(check.pool));
        }}
        onDismissNotice={() => setNotice(null)}
        onClose={() => dialog.current?.close()}
      />
      <input
        ref={fileInput}
        type="file"
        accept=".json,application/json"
        hidden
        data-testid="roles-file"
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) void importFile(f);
          e.target.value = '';
        }}
      />
    </dialog>
  );
}
