/** `${ID}` references inside an agent input. IDs follow the trace id alphabet. */
const REF_RE = /\$\{([A-Za-z0-9_.:-]+)\}/g;

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
  return input.replace(REF_RE, (whole, id: string) => resolve(id) ?? whole);
}
