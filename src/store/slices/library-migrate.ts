/**
 * Migrations of the stored recents index (`src/store/services/recents.ts`).
 *
 * 1 → 2: version 1 entries lack what the gallery groups, filters and sums by (row, step, DoM,
 * result, tokens, cost, size). Each is rebuilt from its stored trace, keeping where and when it
 * came in; an entry whose trace is gone or unreadable keeps what it had, with the result taken
 * from `correct` and the row and step read from its list title (" · row 3 · step 130"), and is
 * still listed (opening it says the trace is missing) rather than dropped unannounced.
 */
import type { Trace } from '../../core/trace.ts';
import type { RecentEntry } from '../services/recents.ts';
import { recentEntryOf } from './library-lists.ts';

/** A version-1 entry as version 2, from its stored trace when there is one. */
export function upgradeEntry(entry: RecentEntry, trace: Trace | null): RecentEntry {
  if (trace && trace.id === entry.id)
    return recentEntryOf(trace, entry.source, entry.openedAt, entry.sourceLabel);
  const row = / · row (\S{1,40})(?: · |$)/.exec(entry.title)?.[1];
  const step = / · step (\d{1,9})$/.exec(entry.title)?.[1];
  return {
    ...entry,
    ...(entry.row === undefined && row !== undefined ? { row } : {}),
    ...(entry.step === undefined && step !== undefined ? { step: Number(step) } : {}),
    result:
      entry.result ?? (entry.correct === true ? 'correct' : entry.correct === false ? 'wrong' : 'unknown'),
  };
}

/** Upgrades every entry; `loadTrace` reads a stored trace (null when missing or unreadable). */
export async function migrateRecents(
  entries: readonly RecentEntry[],
  loadTrace: (id: string) => Promise<Trace | null>,
): Promise<RecentEntry[]> {
  const out: RecentEntry[] = [];
  for (const e of entries) out.push(upgradeEntry(e, await loadTrace(e.id)));
  return out;
}
