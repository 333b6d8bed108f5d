/**
 * The one automatic way a trace leaves the library: the browser's storage quota. The recents have
 * no cap; when `navigator.storage.estimate()` says this page's storage would pass
 * `QUOTA_SHARE` of its quota with the traces being added, the least recently opened traces (never
 * the ones being added) are removed until it fits, and the gallery lists what was removed. Pure.
 */
import type { RecentEntry, StorageUse } from '../services/recents.ts';

/** The share of the browser's quota the library lets itself fill before it removes traces. */
export const QUOTA_SHARE = 0.8;

/** Bytes assumed for an entry saved before entries carried their size. */
export const DEFAULT_TRACE_BYTES = 20_000;

export interface EvictionPlan {
  /** Ids to remove, least recently opened first. */
  drop: string[];
  freedBytes: number;
  /** Bytes over the limit before any removal (0 when the additions fit). */
  overBytes: number;
  /** False when even removing every older trace does not make room. */
  fits: boolean;
}

/**
 * `list` is newest first (the recents' order); `keep` are the ids being added now; `incoming`
 * their bytes. Nothing is planned when the browser gives no estimate.
 */
export function planEviction(
  list: readonly RecentEntry[],
  use: StorageUse | null,
  incoming: number,
  keep: ReadonlySet<string>,
  share = QUOTA_SHARE,
): EvictionPlan {
  if (use === null) return { drop: [], freedBytes: 0, overBytes: 0, fits: true };
  const over = use.usage + incoming - use.quota * share;
  if (over <= 0) return { drop: [], freedBytes: 0, overBytes: 0, fits: true };
  const drop: string[] = [];
  let freed = 0;
  for (let i = list.length - 1; i >= 0 && freed < over; i--) {
    const e = list[i]!;
    if (keep.has(e.id)) continue;
    drop.push(e.id);
    freed += e.bytes ?? DEFAULT_TRACE_BYTES;
  }
  return { drop, freedBytes: freed, overBytes: over, fits: freed >= over };
}
