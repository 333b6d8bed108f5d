import type { Trace } from '../../core/trace.ts';

/**
 * Titles for lists (recent traces, the Run page's runs and its trace picker). A trace's title is
 * often the first 80 characters of its question, raw LaTeX and all, cut mid-word
 * ("Let $ABC$ be a triangle inscribed in circle $\omeg"), and a file of slides gives many traces
 * the same question. Here titles become plain text cut at a word boundary, with what tells such
 * traces apart (the source's row, the training step). Pure.
 */

/** Longest list title, in characters, before it is cut at a word boundary. */
export const LIST_TITLE_MAX = 90;

/** Longest title a list shows, in characters: a list title and the details after it. */
const SHOWN_TITLE_MAX = 200;

/** LaTeX commands written as the character they stand for. */
const SYMBOLS: Record<string, string> = {
  alpha: 'α',
  beta: 'β',
  gamma: 'γ',
  delta: 'δ',
  epsilon: 'ε',
  varepsilon: 'ε',
  theta: 'θ',
  lambda: 'λ',
  mu: 'μ',
  pi: 'π',
  rho: 'ρ',
  sigma: 'σ',
  tau: 'τ',
  phi: 'φ',
  varphi: 'φ',
  omega: 'ω',
  Gamma: 'Γ',
  Delta: 'Δ',
  Theta: 'Θ',
  Lambda: 'Λ',
  Pi: 'Π',
  Sigma: 'Σ',
  Phi: 'Φ',
  Omega: 'Ω',
  cdot: '·',
  times: '×',
  div: '÷',
  pm: '±',
  le: '≤',
  leq: '≤',
  ge: '≥',
  geq: '≥',
  ne: '≠',
  neq: '≠',
  approx: '≈',
  infty: '∞',
  angle: '∠',
  triangle: '△',
  circ: '°',
  degree: '°',
  dots: '…',
  ldots: '…',
  cdots: '…',
  to: '→',
  rightarrow: '→',
  implies: '⇒',
  in: '∈',
  sum: 'Σ',
  prod: 'Π',
  sqrt: '√',
  lfloor: '⌊',
  rfloor: '⌋',
  lceil: '⌈',
  rceil: '⌉',
  '%': '%',
  '&': '&',
  '#': '#',
  _: '_',
};

/** Escaped characters that the markup removal would otherwise take for markup. */
const ESCAPED: [RegExp, string, string][] = [
  [/\\\$/g, '\u0001', '$'],
  [/\\\{/g, '\u0002', '{'],
  [/\\\}/g, '\u0003', '}'],
];

/** Commands whose braced argument is shown as it is: `\text{km}` → km, `\overline{AD}` → AD. */
const KEEP_ARGUMENT =
  /\\(?:text|textbf|textit|mathrm|mathbf|mathit|mathbb|mathcal|operatorname|overline|underline|bar|hat|vec|widehat|overrightarrow|boxed|fbox)\s*\{([^{}]*)\}/g;

/**
 * Markdown and LaTeX markup as plain text: math delimiters (`$`, `\(…\)`, `\[…\]`) dropped, `\frac{a}{b}` → a/b, common
 * symbols as characters, other commands and stray braces removed, whitespace collapsed. A command
 * cut off at the end of the text (`\omeg`) is dropped.
 */
export function plainText(text: string): string {
  let s = text;
  for (const [escaped, mark] of ESCAPED) s = s.replace(escaped, mark);
  for (let i = 0; i < 3; i++) s = s.replace(KEEP_ARGUMENT, '$1');
  for (let i = 0; i < 3; i++) s = s.replace(/\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, '$1/$2');
  s = s
    .replace(/\\[()[\]]/g, ' ')
    .replace(/\\\\/g, ' ')
    .replace(/\\sqrt\s*\{([^{}]*)\}/g, '√$1')
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b\s*/g, '')
    .replace(/\\([A-Za-z]+|[%&#_])/g, (_m, name: string) => SYMBOLS[name] ?? '')
    .replace(/\\[,;:! ]/g, ' ')
    .replace(/\$+/g, '')
    .replace(/[{}]/g, '')
    .replace(/\*\*|__|`+|^#+\s*/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
  for (const [, mark, char] of ESCAPED) s = s.split(mark).join(char);
  return s;
}

/** Cuts at the last word boundary before `max` characters and adds "…"; short text is unchanged. */
export function cutAtWord(text: string, max: number): string {
  const s = text.trim();
  if (s.length <= max) return s;
  const head = s.slice(0, max);
  const space = head.lastIndexOf(' ');
  // A single very long word is cut where it must be.
  const cut = space >= max * 0.5 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s,;:.\-–—(]+$/, '')}…`;
}

/**
 * The text a title was taken from: when the title is the start of the question (importers and
 * runs title a trace by its question), the whole question, so the cut falls on a word boundary and
 * not where the title happened to end.
 */
function titleSource(title: string, query: string): string {
  const t = title.trim();
  const q = query.trim();
  return t !== '' && q.length > t.length && q.startsWith(t) ? q : t || q;
}

/** A list title: plain text, cut at a word boundary. */
export function listTitle(title: string, query = '', max = LIST_TITLE_MAX): string {
  return cutAtWord(plainText(titleSource(title, query)), max);
}

/**
 * A recent entry's title as a list shows it. Entries are saved with their list title (see
 * `traceListTitle`), shown as they are; entries saved before that hold the trace's raw title, a
 * start of the question, which gets the list title's treatment here.
 */
export function shownTitle(title: string, query: string): string {
  const raw = titleSource(title, query) !== title.trim();
  return raw ? listTitle(title, query) : cutAtWord(plainText(title), SHOWN_TITLE_MAX);
}

/**
 * What tells a trace apart from others with the same question: for traces designed elsewhere and
 * imported, the source's dataset, row or reference and the training step of the orchestrator,
 * e.g. "aime24 · row 3 · step 130". Empty for traces made here, whose titles already say it.
 */
export function traceDetail(trace: Trace): string {
  if (trace.designer.kind !== 'imported') return '';
  const parts: string[] = [];
  const source = trace.task.source;
  if (source.kind === 'dataset') parts.push(source.name, source.item ?? '');
  else if (source.kind === 'masbench') parts.push(`${source.axis} ${source.value}`, source.taskId ?? '');
  else if (source.kind === 'imported') parts.push(source.ref ?? '');
  if (trace.designer.trainingStep !== undefined) parts.push(`step ${trace.designer.trainingStep}`);
  return parts
    .map((p) => p.trim().slice(0, 60))
    .filter((p) => p !== '')
    .join(' · ');
}

/**
 * The title a trace is listed under: its list title, then what tells it apart. A title taken from
 * the question is cut short (the question is in the list's search and on the trace page); a title
 * of its own (a run's, an example's) is kept whole up to `SHOWN_TITLE_MAX`.
 */
export function traceListTitle(trace: Trace): string {
  const detail = traceDetail(trace);
  const fromQuestion = titleSource(trace.title, trace.task.query) !== trace.title.trim();
  const max = !fromQuestion ? SHOWN_TITLE_MAX : detail === '' ? LIST_TITLE_MAX : 60;
  const title = listTitle(trace.title, trace.task.query, max);
  return detail === '' ? title : `${title} · ${detail}`;
}
