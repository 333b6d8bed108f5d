/**
 * The gallery's search language, parsed once per keystroke and matched against documents whose
 * fields were lower-cased once when the list was indexed. Pure: data in, data out.
 *
 * A query is a list of parts separated by spaces (all must hold):
 * - a word: occurs, case-insensitively, somewhere in the document's text (title, question, file
 *   name, agent types, tags);
 * - a "quoted phrase": occurs as written (spaces included);
 * - a field filter `key:value` (or `key:"a value"`), for the keys in `FIELD_KEYS`:
 *   - `file:` — part of the source file's name (or URL);
 *   - `row:` — exactly this row of a case page (`row:13` is not row 130);
 *   - `step:` — exactly this training step;
 *   - `result:` — `correct`, `wrong`, `failed` or `unknown`;
 *   - `type:` — part of an agent type (`type:debate` finds DebateAgent);
 *   - `dom:` — the Degree of MAS, `low` or `high` (`high` includes `high_extensive`);
 *   - `tag:` — part of a tag.
 * - `row 130` and `step 130` (the words as the list shows them, a whole number after) are read as
 *   `row:130` and `step:130`, so "aime24 row 130" finds one slide and not every one that mentions
 *   130. To search for the words themselves, quote them: "row 130".
 * A `key:` that is not a field (`ratio:3`, `10:30`) is an ordinary word.
 */

export const FIELD_KEYS = ['file', 'row', 'step', 'result', 'type', 'dom', 'tag'] as const;
export type FieldKey = (typeof FIELD_KEYS)[number];

export const RESULTS = ['correct', 'wrong', 'failed', 'unknown'] as const;
export type ResultKind = (typeof RESULTS)[number];

export interface ParsedQuery {
  /** Lower-cased words and phrases that must occur in the document's text. */
  text: string[];
  /** Lower-cased values per field; every listed value must match. */
  fields: Partial<Record<FieldKey, string[]>>;
  /** Parts that could not be read (an unknown result, a row that is not a number), in words. */
  problems: string[];
}

/** What a document offers the matcher; every string lower-cased once, when the list is indexed. */
export interface SearchDoc {
  /** Everything the plain words and phrases search, joined. */
  text: string;
  file: string;
  row: string;
  step: string;
  result: ResultKind;
  types: readonly string[];
  dom: string;
  tags: readonly string[];
}

const isField = (key: string): key is FieldKey => (FIELD_KEYS as readonly string[]).includes(key);

/** Splits a query into tokens, keeping quoted runs (with or without a `key:` prefix) together. */
function tokens(query: string): { key: string | null; value: string; quoted: boolean }[] {
  const out: { key: string | null; value: string; quoted: boolean }[] = [];
  const re = /(?:([A-Za-z]+):)?"([^"]*)"?|(\S+)/g;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    if (m[2] !== undefined) out.push({ key: m[1] ?? null, value: m[2], quoted: true });
    else {
      const word = m[3] ?? '';
      const colon = word.indexOf(':');
      const key = colon > 0 ? word.slice(0, colon) : null;
      if (key !== null && isField(key.toLowerCase()) && colon < word.length - 1)
        out.push({ key, value: word.slice(colon + 1), quoted: false });
      else out.push({ key: null, value: word, quoted: false });
    }
  }
  return out;
}

const WHOLE = /^\d{1,9}$/;

export function parseQuery(query: string): ParsedQuery {
  const parsed: ParsedQuery = { text: [], fields: {}, problems: [] };
  const add = (key: FieldKey, value: string): void => {
    (parsed.fields[key] ??= []).push(value);
  };
  const list = tokens(query.slice(0, 2_000));
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    const value = t.value.toLowerCase().trim();
    const key = t.key?.toLowerCase() ?? null;
    if (key !== null && isField(key)) {
      if (value === '') continue;
      if ((key === 'row' || key === 'step') && !WHOLE.test(value)) {
        parsed.problems.push(`${key}: takes a whole number, not “${t.value}”`);
        continue;
      }
      if (key === 'result' && !(RESULTS as readonly string[]).includes(value)) {
        parsed.problems.push(`result: takes ${RESULTS.join(', ')}, not “${t.value}”`);
        continue;
      }
      add(key, key === 'row' || key === 'step' ? String(Number(value)) : value);
      continue;
    }
    if (key !== null) {
      // `unknownkey:"quoted"`: the key is a word of its own.
      parsed.text.push(key);
    }
    // "row 130" / "step 130", unquoted: the field, as the list writes it.
    const next = list[i + 1];
    if (
      !t.quoted &&
      (value === 'row' || value === 'step') &&
      next !== undefined &&
      !next.quoted &&
      next.key === null &&
      WHOLE.test(next.value)
    ) {
      add(value, String(Number(next.value)));
      i++;
      continue;
    }
    if (value !== '') parsed.text.push(t.quoted ? value.replace(/\s+/g, ' ') : value);
  }
  return parsed;
}

export function isEmptyQuery(q: ParsedQuery): boolean {
  return q.text.length === 0 && Object.keys(q.fields).length === 0;
}

function fieldMatches(key: FieldKey, value: string, doc: SearchDoc): boolean {
  switch (key) {
    case 'file':
      return doc.file.includes(value);
    case 'row':
      return doc.row === value;
    case 'step':
      return doc.step === value;
    case 'result':
      return doc.result === value;
    case 'type':
      return doc.types.some((t) => t.includes(value));
    case 'dom':
      return value === 'high' ? doc.dom.startsWith('high') : doc.dom === value;
    case 'tag':
      return doc.tags.some((t) => t.includes(value));
  }
}

/** The query's field filters as one flat list, made once per parsed query (a search tests thousands of documents). */
const flatFields = new WeakMap<ParsedQuery, [FieldKey, string][]>();

function fieldsOf(q: ParsedQuery): [FieldKey, string][] {
  let flat = flatFields.get(q);
  if (!flat) {
    flat = [];
    for (const key of FIELD_KEYS) for (const v of q.fields[key] ?? []) flat.push([key, v]);
    flatFields.set(q, flat);
  }
  return flat;
}

/** True when every word, phrase and field filter of the query holds for the document. */
export function matchesQuery(q: ParsedQuery, doc: SearchDoc): boolean {
  for (const w of q.text) if (!doc.text.includes(w)) return false;
  for (const [key, v] of fieldsOf(q)) if (!fieldMatches(key, v, doc)) return false;
  return true;
}
