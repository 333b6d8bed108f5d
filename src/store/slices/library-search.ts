/**
 * The gallery's search index: every recent entry's searchable fields lower-cased and joined once
 * (memoised per entry object, so a list of 5,000 is indexed once and a new import indexes only
 * its own entries), then each keystroke is one parse (`src/view/search.ts`) and a scan of
 * precomputed strings. Grouping by collection and the filters' choices live in
 * `library-groups.ts`.
 */
import type { Trace } from '../../core/trace.ts';
import { matchesQuery, type ParsedQuery, type SearchDoc } from '../../view/search.ts';
import type { Example } from '../services/examples.ts';
import type { RecentEntry } from '../services/recents.ts';
import { agentTypesOf, resultOf, rowOf, taskSourceWords } from './library-lists.ts';

const lower = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ');

const docs = new WeakMap<RecentEntry, SearchDoc>();

/** The entry's search document, built on first use and kept as long as the entry object lives. */
export function recentDoc(entry: RecentEntry): SearchDoc {
  let doc = docs.get(entry);
  if (!doc) {
    const file = lower(entry.sourceLabel ?? '');
    doc = {
      text: lower(
        [entry.title, entry.query, ...entry.agentTypes, ...entry.tags, entry.sourceLabel ?? ''].join('\n'),
      ),
      file,
      row: entry.row ?? '',
      step: entry.step === undefined ? '' : String(entry.step),
      result:
        entry.result ?? (entry.correct === true ? 'correct' : entry.correct === false ? 'wrong' : 'unknown'),
      types: entry.agentTypes.map(lower),
      dom: entry.dom ?? '',
      tags: entry.tags.map(lower),
    };
    docs.set(entry, doc);
  }
  return doc;
}

/** The entries the query matches, in list order. */
export function searchRecents(entries: readonly RecentEntry[], query: ParsedQuery): RecentEntry[] {
  return entries.filter((e) => matchesQuery(query, recentDoc(e)));
}

/** An example's search document (a handful of examples: built on each search). */
export function exampleDoc(example: Example): SearchDoc {
  const trace: Trace | null = example.trace.ok ? example.trace.value : null;
  return {
    text: lower(
      [
        example.title,
        example.summary,
        example.file,
        ...example.tags,
        ...(trace
          ? [trace.title, trace.task.query, ...agentTypesOf(trace), ...trace.tags, ...taskSourceWords(trace)]
          : []),
      ].join('\n'),
    ),
    file: lower(example.file),
    row: trace ? (rowOf(trace) ?? '') : '',
    step:
      trace?.designer.kind === 'imported' && trace.designer.trainingStep !== undefined
        ? String(trace.designer.trainingStep)
        : '',
    result: trace ? resultOf(trace) : 'unknown',
    types: trace ? agentTypesOf(trace).map(lower) : [],
    dom: trace ? trace.design.dom : '',
    tags: [...example.tags, ...(trace?.tags ?? [])].map(lower),
  };
}
