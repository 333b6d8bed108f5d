import type { Trace } from '../../core/trace.ts';

/** A note of an import as the banner groups it: one message, the file, and every item it is about. */
export interface NoteGroup {
  file: string;
  message: string;
  labels: string[];
}

/** Where a trace sits in its file, as the importer named it: `row 4 · step 250`, or its title. */
export function itemLabel(trace: Trace): string {
  const s = trace.task.source;
  const at =
    s.kind === 'masbench'
      ? s.taskId
      : s.kind === 'dataset'
        ? s.item
        : s.kind === 'imported'
          ? s.ref
          : undefined;
  const step = trace.designer.kind === 'imported' ? trace.designer.trainingStep : undefined;
  const base = at ?? (trace.title || trace.id);
  return `${base.slice(0, 80)}${step !== undefined && !base.includes('step') ? ` · step ${step}` : ''}`;
}

/**
 * Every note of an import, grouped by file and message so that a note every slide shares (the page
 * and the code disagree on the model, say) is one line naming all the slides, not 240 lines. The
 * notes come from the file report (`notes`) and from each trace (`importNotes`); none is dropped.
 */
export function groupImportNotes(
  files: readonly {
    name: string;
    traces: readonly Trace[];
    notes?: readonly { label: string; message: string }[];
  }[],
): NoteGroup[] {
  const groups = new Map<string, NoteGroup>();
  const add = (file: string, label: string, message: string): void => {
    const key = `${file}\u0000${message}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { file, message, labels: [label] });
    else if (!g.labels.includes(label)) g.labels.push(label);
  };
  for (const f of files) {
    for (const n of f.notes ?? []) add(f.name, n.label, n.message);
    for (const t of f.traces) for (const n of t.importNotes ?? []) add(f.name, itemLabel(t), n.message);
  }
  return [...groups.values()];
}
