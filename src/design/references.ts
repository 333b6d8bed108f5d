/**
 * `${ID}` references inside an agent input.
 *
 * A reference is recognised with letters, digits and marks of any script (and `_ . : -`, emoji),
 * wider than the id alphabet (rule 13: ASCII letters, digits, `_ . : -`). So a design that names
 * an agent `ñandú` and uses `${ñandú}` breaks rule 13 once, for the id, instead of also reading
 * as an edge without a reference (rule 9) — and an importer that renames the id can find every
 * reference to it. LaTeX such as `${\alpha}` or `${x^2}` is not a reference.
 */
const REF_RE = /\$\{([\p{L}\p{M}\p{N}\p{Pc}\p{So}\u200d.:-]+)\}/gu;

export function referencesIn(input: string): string[] {
  const out: string[] = [];
  for (const m of input.matchAll(REF_RE)) {
    const id = m[1] as string;
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

/** A piece of an agent input: literal text, or a reference to another agent's output. */
export type InputPart = { kind: 'text'; text: string } | { kind: 'ref'; id: string };

/** Splits an input into text and references, for rendering references resolved or as links. */
export function splitReferences(input: string): InputPart[] {
  const parts: InputPart[] = [];
  let last = 0;
  for (const m of input.matchAll(REF_RE)) {
    const at = m.index ?? 0;
    if (at > last) parts.push({ kind: 'text', text: input.slice(last, at) });
    parts.push({ kind: 'ref', id: m[1] as string });
    last = at + m[0].length;
  }
  if (last < input.length) parts.push({ kind: 'text', text: input.slice(last) });
  return parts;
}

/** Replaces every `${ID}` with `resolve(ID)`; unknown ids are left as written. */
export function resolveReferences(input: string, resolve: (id: string) => string | undefined): string {
  if (!input.includes('${')) return input;
  // From the input's pieces, read once per input (inputs repeat run after run): text, id, text, …
  let pieces = split.get(input);
  if (pieces === undefined) {
    pieces = [];
    let last = 0;
    for (const m of input.matchAll(REF_RE)) {
      const at = m.index ?? 0;
      pieces.push(input.slice(last, at), m[1] as string);
      last = at + m[0].length;
    }
    pieces.push(input.slice(last));
    if (split.size >= SPLIT_LIMIT) split.clear();
    split.set(input, pieces);
  }
  let out = pieces[0] as string;
  for (let i = 1; i < pieces.length; i += 2) {
    const id = pieces[i] as string;
    // The whole reference is `${` + id + `}`, as the pattern reads it.
    out += (resolve(id) ?? `\${${id}}`) + (pieces[i + 1] as string);
  }
  return out;
}

/** `resolveReferences` by the pattern's own replace: the reference its tests compare with. */
export function resolveReferencesByPattern(
  input: string,
  resolve: (id: string) => string | undefined,
): string {
  return input.replace(REF_RE, (whole, id: string) => resolve(id) ?? whole);
}

const split = new Map<string, string[]>();
const SPLIT_LIMIT = 1024;

/** Rewrites `${OLD}` to `${NEW}` for every id in `renamed`; other references are left as written. */
export function renameReferences(input: string, renamed: ReadonlyMap<string, string>): string {
  return resolveReferences(input, (id) => {
    const next = renamed.get(id);
    return next === undefined ? undefined : `\${${next}}`;
  });
}
