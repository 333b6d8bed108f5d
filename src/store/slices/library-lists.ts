/**
 * The library's pure list logic: recent entries from traces, merging the recents (every trace is
 * kept: nothing falls off the end), and the examples' search.
 */
import type { Trace } from '../../core/trace.ts';
import type { ResultKind } from '../../view/search.ts';
import { recordedTotals } from '../../view/totals.ts';
import type { Example } from '../services/examples.ts';
import type { RecentEntry, RecentSource } from '../services/recents.ts';
import { traceListTitle } from './library-titles.ts';

export function agentTypesOf(trace: Trace): string[] {
  return [...new Set(trace.design.agents.map((a) => a.type))];
}

/**
 * correct / wrong by the grader; failed when the run failed, was cancelled or ended without an
 * answer; unknown when there is nothing to grade against (or it has not run).
 */
export function resultOf(trace: Trace): ResultKind {
  const { status } = trace.execution;
  if (status === 'failed' || status === 'cancelled') return 'failed';
  if (status === 'completed' && (trace.result.finalAnswer ?? '').trim() === '') return 'failed';
  if (trace.result.correct === true) return 'correct';
  if (trace.result.correct === false) return 'wrong';
  return 'unknown';
}

/** The source's row, from where the importers write it: `row 130` at the end of the item or ref. */
export function rowOf(trace: Trace): string | undefined {
  const s = trace.task.source;
  const where =
    s.kind === 'dataset'
      ? s.item
      : s.kind === 'masbench'
        ? s.taskId
        : s.kind === 'imported'
          ? s.ref
          : undefined;
  const m = /(?:^|\s)row (\S{1,40})$/.exec(where ?? '');
  return m?.[1];
}

export function recentEntryOf(
  trace: Trace,
  source: RecentSource,
  openedAt: string,
  sourceLabel?: string,
): RecentEntry {
  const recorded = recordedTotals(trace);
  const row = rowOf(trace);
  const step = trace.designer.kind === 'imported' ? trace.designer.trainingStep : undefined;
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
    ...(row === undefined ? {} : { row }),
    ...(step === undefined ? {} : { step }),
    dom: trace.designer.kind === 'imported' && trace.designer.dom ? trace.designer.dom : trace.design.dom,
    result: resultOf(trace),
    tokens: recorded.usage ? trace.totals.promptTokens + trace.totals.completionTokens : null,
    costUsd: recorded.usage ? trace.totals.costUsd : null,
    bytes: JSON.stringify(trace).length,
  };
}

/**
 * Puts `added` (in order) at the top of `list`, replacing older entries with the same id. Every
 * entry is kept: there is no cap, and traces leave only by `removeRecents`, `clearRecents` or the
 * storage quota (`planEviction`), each of which says so.
 */
export function mergeRecents(list: readonly RecentEntry[], added: readonly RecentEntry[]): RecentEntry[] {
  const seen = new Set<string>();
  const merged: RecentEntry[] = [];
  for (const e of [...added, ...list]) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    merged.push(e);
  }
  return merged;
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
