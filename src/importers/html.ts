import { parsePyLiteral } from './py-literal.ts';

/**
 * MAS-Orchestra's case pages (`mas_r1/<name>.html`) embed their data as one script statement,
 * `const slides = [{…}, …];`, written by `json.dumps`. The array is cut out of the page by
 * bracket matching (aware of quoted strings) and read as JSON, falling back to the Python-literal
 * reader for hand-edited pages with single quotes or `True`/`False`. Nothing is evaluated.
 */
export type SlidesExtraction =
  | { ok: true; value: unknown; pageName?: string }
  /** `error` says in one clause what is wrong with the page, e.g. "this HTML page is not …". */
  | { ok: false; error: string };

const DECLARATION_RE = /\b(?:const|let|var)\s+slides\s*=\s*/g;

/** True when the text looks like an HTML page rather than JSON. */
export function looksLikeHtml(text: string): boolean {
  return text.slice(0, 2000).trimStart().startsWith('<');
}

/** The offset just after the bracket that closes the one at `open`, or -1. */
export function matchBracket(text: string, open: number): number {
  const stack: string[] = [];
  const closing: Record<string, string> = { '[': ']', '{': '}', '(': ')' };
  let i = open;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"' || c === "'" || c === '`') {
      // Skip a quoted string; a backslash escapes the next character.
      i++;
      while (i < text.length && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return -1;
    } else if (c in closing) {
      stack.push(closing[c] as string);
    } else if (c === ']' || c === '}' || c === ')') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/** The page name from `<title>MAS Diagram Browser (qwen2.5_20b_oss_120b_low_depth2)</title>`. */
export function pageNameOf(html: string): string | undefined {
  const title = /<title>([^<]{0,400})<\/title>/i.exec(html)?.[1];
  const inParens = title ? /\(([A-Za-z0-9_.-]{1,200})\)\s*$/.exec(title.trim())?.[1] : undefined;
  return inParens;
}

export function extractSlides(html: string): SlidesExtraction {
  for (const m of html.matchAll(DECLARATION_RE)) {
    const open = (m.index ?? 0) + m[0].length;
    if (html[open] !== '[') continue;
    const end = matchBracket(html, open);
    if (end < 0)
      return {
        ok: false,
        error:
          'the `const slides = [...]` array of this MAS-Orchestra case page is never closed (is the file cut short?)',
      };
    const literal = html.slice(open, end);
    const pageName = pageNameOf(html);
    const named = pageName !== undefined ? { pageName } : {};
    try {
      return { ok: true, value: JSON.parse(literal) as unknown, ...named };
    } catch (e) {
      const py = parsePyLiteral(literal);
      if (py.ok) return { ok: true, value: py.value, ...named };
      return {
        ok: false,
        error: `the \`slides\` array of this MAS-Orchestra case page is neither JSON nor a plain literal (${e instanceof Error ? e.message : String(e)})`,
      };
    }
  }
  return {
    ok: false,
    error: 'this HTML page is not a MAS-Orchestra case page: it has no `const slides = [...]` array',
  };
}
