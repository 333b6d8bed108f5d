/**
 * The library's pure list logic: recent entries from traces, merging and capping the recents, and
 * the gallery's search over titles, questions, agent types, tags and where a trace came from.
 */
import type { Trace } from '../../core/trace.ts';
import type { Example } from '../services/examples.ts';
import type { RecentEntry, RecentSource } from '../services/recents.ts';
import { traceListTitle } from './library-titles.ts';

/** How many recent traces are kept; older ones (and their stored traces) are dropped. */
export const RECENTS_CAP = 200;

export function agentTypesOf(trace: Trace): string[] {
  return [...new Set(trace.design.agents.map((a) => a.type))];
}

export function recentEntryOf(
  trace: Trace,
  source: RecentSource,
  openedAt: string,
  sourceLabel?: string,
): RecentEntry {
  return {
    id: trace.id,
    // Listed as plain text cut at a word, with the row and step that tell imported slides apart.
    title: traceListTitle(trace),
    createdAt: trace.createdAt,
    openedAt,
    agentCount: trace.design.agents.length,
    correct: trace.result.correct,
    source,
    ...(sourceLabel === undefined ? {} : { sourceLabel: sourceLabel.slice(0, 2_000) }),
    query: trace.task.query.slice(0, 2_000),
    agentTypes: agentTypesOf(trace),
    tags: trace.tags.slice(0, 32),
  };
}

/**
 * Puts `added` (in order) at the top of `list`, replacing older entries with the same id, and
 * caps the result. `dropped` are ids that fell off the end, whose stored traces must be deleted.
 */
export function mergeRecents(
  list: readonly RecentEntry[],
  added: readonly RecentEntry[],
  cap = RECENTS_CAP,
): { list: RecentEntry[]; dropped: string[] } {
  const seen = new Set<string>();
  const merged: RecentEntry[] = [];
  for (const e of [...added, ...list]) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    merged.push(e);
  }
  return { list: merged.slice(0, cap), dropped: merged.slice(cap).map((e) => e.id) };
}

/** Every whitespace-separated word of the query must occur (case-insensitive) in one of the fields. */
export function matchesSearch(query: string, fields: readonly string[]): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = fields.join('\n').toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** Where a trace's task came from, as searchable words: the dataset or benchmark and its item. */
export function taskSourceWords(trace: Trace): string[] {
  const source = trace.task.source;
  switch (source.kind) {
    case 'custom':
      return [];
    case 'masbench':
      return ['masbench', source.axis, source.taskId ?? ''];
    case 'dataset':
      return [source.name, source.item ?? ''];
    case 'imported':
      return [source.tool, source.ref ?? ''];
  }
}

/** Searches the title, question, agent types, tags and where the trace came from (file, URL). */
export function recentMatches(entry: RecentEntry, query: string): boolean {
  return matchesSearch(query, [
    entry.title,
    entry.query,
    ...entry.agentTypes,
    ...entry.tags,
    entry.sourceLabel ?? '',
  ]);
}

export function exampleMatches(example: Example, query: string): boolean {
  const trace = example.trace.ok ? example.trace.value : null;
  return matchesSearch(query, [
    example.title,
    example.summary,
    example.file,
    ...example.tags,
    ...(trace
      ? [trace.title, trace.task.query, ...agentTypesOf(trace), ...trace.tags, ...taskSourceWords(trace)]
      : []),
  ]);
}
