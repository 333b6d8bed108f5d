import type { Problem } from '../core/result.ts';
import { ImportNoteSchema, MAX_IMPORT_NOTES, type ImportNote, type Trace } from '../core/trace.ts';

const MAX_NOTE_CHARS = 10_000;

/**
 * Puts an importer's warnings on the trace it made (`importNotes`), so the app shows every note the
 * CLI prints. Notes already on the trace (a Baton trace imported again) are kept first; a message
 * already there is not repeated. Past `MAX_IMPORT_NOTES`, the last note says how many were left out.
 */
export function withImportNotes(trace: Trace, warnings: readonly Problem[]): Trace {
  if (warnings.length === 0) return trace;
  const notes: ImportNote[] = [...(trace.importNotes ?? [])];
  const seen = new Set(notes.map((n) => n.message));
  const fresh: ImportNote[] = [];
  for (const w of warnings) {
    const message = String(w.message).slice(0, MAX_NOTE_CHARS);
    if (message.trim() === '' || seen.has(message)) continue;
    seen.add(message);
    const note = {
      code: String(w.code || 'E_IMPORT_ITEM').slice(0, 200),
      message,
      ...(typeof w.path === 'string' ? { path: w.path.slice(0, 1000) } : {}),
    };
    if (ImportNoteSchema.safeParse(note).success) fresh.push(note);
  }
  const all = [...notes, ...fresh];
  if (all.length === notes.length) return trace;
  if (all.length > MAX_IMPORT_NOTES) {
    const kept = all.slice(0, MAX_IMPORT_NOTES - 1);
    kept.push({
      code: 'E_IMPORT_ITEM',
      message: `…and ${all.length - kept.length} more notes, left out to keep the trace small.`,
    });
    return { ...trace, importNotes: kept };
  }
  return { ...trace, importNotes: all };
}
