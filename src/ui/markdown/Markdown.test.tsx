import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { renderToStaticMarkup } from 'react-dom/server';
import { prerender } from 'react-dom/static';
import { describe, expect, it, vi } from 'vitest';

vi.mock('katex/dist/katex.min.css', () => ({}));
vi.mock('./markdown.css', () => ({}));

const { Markdown } = await import('./Markdown.tsx');
const { MarkdownRenderer } = await import('./MarkdownRenderer.tsx');
const { safeUrl } = await import('./safety.ts');

const html = (text: string): string => renderToStaticMarkup(<MarkdownRenderer text={text} />);

describe('Markdown, loaded on first use', () => {
  const TEXT = 'Area $\\pi r^2$ <b>bold?</b>';

  it('shows the text as text while the renderer downloads, then renders it', async () => {
    // The first render starts the download: markdown and KaTeX are not loaded yet, so the text shows
    // as it is, HTML included as literal characters.
    const first = renderToStaticMarkup(<Markdown text={TEXT} className="x" />);
    expect(first).toBe('<div class="md md-plain x">Area $\\pi r^2$ &lt;b&gt;bold?&lt;/b&gt;</div>');
    // A render that waits for the download gets the formatted text.
    const { prelude } = await prerender(<Markdown text={TEXT} className="x" />);
    const done = await new Response(prelude).text();
    expect(done).toContain('<div class="md x">');
    expect(done).toContain('class="katex"');
    expect(done).not.toContain('md-plain');
  });

  it('renders at once when the renderer is already loaded', () => {
    const out = renderToStaticMarkup(<Markdown text={TEXT} />);
    expect(out).toContain('class="katex"');
    expect(out).toBe(html(TEXT));
  });
});

describe('MarkdownRenderer', () => {
  it('shows raw HTML as literal text', () => {
    const out = html('Hi <script>window.__pwned=1</script>\n\n<img src=x onerror="window.__pwned=1">');
    expect(out).not.toMatch(/<script/i);
    expect(out).not.toMatch(/<img/i);
    expect(out).toContain('&lt;script&gt;window.__pwned=1&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=');
  });

  it('keeps http(s) and mailto links and makes others inert', () => {
    const out = html('[ok](https://example.com) [bad](javascript:alert(1)) [mail](mailto:a@b.c) [rel](/x)');
    expect(out).toContain('href="https://example.com"');
    expect(out).toContain('href="mailto:a@b.c"');
    expect(out).not.toContain('javascript:');
    expect(out).not.toContain('href="/x"');
    expect(out).toContain('<span class="md-inert-link">bad</span>');
  });

  it('renders math with KaTeX and never fetches images', () => {
    const out = html('Area $\\pi r^2$ and ![pixel](https://t.example/p.png)');
    expect(out).toContain('class="katex"');
    expect(out).not.toMatch(/<img/i);
    expect(out).toContain('[image: pixel]');
  });

  it('refuses KaTeX links', () => {
    expect(html('$\\href{javascript:alert(1)}{x}$')).not.toContain('href="javascript');
  });

  it('filters URLs with hidden schemes', () => {
    expect(safeUrl(' java\tscript:alert(1)')).toBe('');
    expect(safeUrl('HTTPS://x.y')).toBe('HTTPS://x.y');
    expect(safeUrl('data:text/html,hi')).toBe('');
  });
});

/** The stylesheet `MarkdownRenderer.tsx` imports, resolved the way its import is. */
const katexCss = readFileSync(createRequire(import.meta.url).resolve('katex/dist/katex.min.css'), 'utf8');
const styledClasses = new Set([...katexCss.matchAll(/\.([a-zA-Z][\w-]*)/g)].map((m) => m[1] ?? ''));
const classesIn = (markup: string): string[] => [
  ...new Set([...markup.matchAll(/class="([^"]*)"/g)].flatMap((m) => (m[1] ?? '').split(/\s+/))),
];
// KaTeX's atom classes (ordinary, relation, …) only carry meaning; the stylesheet need not style them.
const ATOMS = new Set(['mord', 'mop', 'mbin', 'mrel', 'mopen', 'mclose', 'mpunct', 'minner', 'mtight']);

describe('Markdown maths', () => {
  it('renders with the KaTeX its stylesheet belongs to: every layout class is styled', () => {
    // rehype-katex renders with its own `katex` dependency, the stylesheet comes from ours; markup
    // from another KaTeX version misses the stylesheet's rules: 0.16's \boxed{42} is "stretchy
    // fbox", 0.19 styles ".katex-stretchy", and the box collapses to a left border.
    const out = html(
      '$\\boxed{42}$ $x^2_i$ $\\frac12$ $\\sqrt{2}$ $\\overline{x}$ $\\xrightarrow{a}$ $\\widehat{ab}$ ' +
        '$\\cancel{x}$ $\\large x$ $\\begin{array}{c}a\\\\\\hline b\\end{array}$',
    );
    expect(out).toMatch(/class="[^"]*\bfbox\b/);
    const katexMarkup = out.slice(out.indexOf('<span class="katex">'));
    const unstyled = classesIn(katexMarkup).filter((c) => !styledClasses.has(c) && !ATOMS.has(c));
    expect(unstyled).toEqual([]);
  });

  it('renders inline, display and fenced maths; bad TeX shows as an error, not a crash', () => {
    expect(html('a $x$ b')).toMatch(/<p>a <span class="katex">/);
    expect(html('$$\nx^2\n$$')).toContain('class="katex-display"');
    const fenced = html('```math\n\\frac12\n```');
    expect(fenced).toContain('class="katex-display"');
    expect(fenced).not.toContain('<pre');
    const bad = html('$\\frac{1$');
    expect(bad).toContain('katex-error');
    expect(bad).toContain('\\frac{1');
  });
});

/** The TeX source of every KaTeX rendering in the markup, and whether it is display maths. */
const maths = (markup: string): { tex: string; display: boolean }[] =>
  [
    ...markup.matchAll(
      /(<span class="katex-display">)?<span class="katex">.*?<annotation encoding="application\/x-tex">(.*?)<\/annotation>/g,
    ),
  ].map((m) => ({ tex: (m[2] ?? '').replace(/&amp;/g, '&'), display: m[1] !== undefined }));

describe('Markdown maths: every delimiter model outputs use', () => {
  it('renders \\(…\\) as inline maths and \\[…\\] as display maths', () => {
    // Markdown alone reads `\(` and `\[` as escaped brackets: "(x^2)" and "[y]", no maths.
    const out = html('Inline \\(x^2 + 1\\) and display:\n\\[\n\\frac{a}{b}\n\\]\nthen \\[ y \\] mid-line.');
    expect(maths(out)).toEqual([
      { tex: 'x^2 + 1', display: false },
      { tex: '\\frac{a}{b}', display: true },
      { tex: 'y', display: true },
    ]);
    expect(out).not.toContain('(x^2 + 1)');
    expect(out).toContain('then');
    expect(out).toContain('mid-line.');
  });

  it('still renders $…$ and $$…$$, and does not rewrite maths already in dollars', () => {
    const out = html('a $\\boxed{1}$ b $$\\boxed{2}$$ c\n\n$$\n\\boxed{3}\n$$');
    expect(maths(out)).toEqual([
      { tex: '\\boxed{1}', display: false },
      { tex: '\\boxed{2}', display: false },
      { tex: '\\boxed{3}', display: true },
    ]);
  });

  it('renders a bare \\boxed{…} outside maths as a box, nested braces and all', () => {
    const out = html('So the answer is \\boxed{\\frac{3}{4}, 7}.');
    expect(maths(out)).toEqual([{ tex: '\\boxed{\\frac{3}{4}, 7}', display: false }]);
    expect(out).toMatch(/class="[^"]*\bfbox\b/);
    // No raw `\boxed` left outside the maths' own TeX annotation.
    expect(out.replace(/<annotation[^>]*>.*?<\/annotation>/g, '')).not.toContain('\\boxed');
  });

  it('leaves code spans, fenced and indented code as they are', () => {
    const out = html(
      'Use `\\(x\\)` or `\\boxed{1}`.\n\n```\n\\[y\\] \\boxed{2}\n```\n\n    \\(z\\)\n\nthen \\(w\\)',
    );
    expect(out).toContain('<code>\\(x\\)</code>');
    expect(out).toContain('<code>\\boxed{1}</code>');
    expect(out).toContain('\\[y\\] \\boxed{2}\n</code></pre>');
    expect(out).toContain('<pre><code>\\(z\\)');
    expect(maths(out)).toEqual([{ tex: 'w', display: false }]);
  });

  it('keeps markdown escapes and an unclosed \\( as text', () => {
    const out = html('cost \\$5, a \\\\(b\\\\), open \\(never closed');
    expect(maths(out)).toEqual([]);
    expect(out).toContain('cost $5');
    expect(out).toContain('open (never closed');
  });

  it('keeps display maths inside its list item and quote', () => {
    const out = html('- first\n- second:\n  \\[\n  a + b\n  \\]\n  after\n\n> quoted \\[q\\] end');
    expect(out).toMatch(/<li>second:\s*<span class="katex-display">/);
    expect(out).toMatch(/<blockquote>[\s\S]*katex-display[\s\S]*end<\/p>\s*<\/blockquote>/);
    expect(maths(out).map((m) => m.tex)).toEqual(['a + b', 'q']);
  });

  it('reads TeX inside \\(…\\) as maths, not markdown emphasis', () => {
    expect(maths(html('\\(a_1 * b_2 * c_3\\)'))[0]?.tex).toBe('a_1 * b_2 * c_3');
  });

  it('keeps its safety: raw HTML in or around the new delimiters is text, KaTeX links refused', () => {
    const out = html('\\(x\\) <script>alert(1)</script> \\boxed{\\href{javascript:alert(1)}{y}}');
    expect(out).not.toMatch(/<script/i);
    expect(out).toContain('&lt;script&gt;');
    expect(out).not.toContain('href="javascript');
  });
});

describe('Markdown maths: punctuation', () => {
  it('keeps the punctuation after inline maths, and an opening bracket before it, with the maths', () => {
    const out = html('So $6 \\cdot 7 = 42$. Then ($x$), and \\boxed{5}!');
    const glued = [
      ...out.matchAll(
        /<span class="md-nowrap">(.*?)<span class="katex">[\s\S]*?<\/span>([^<]*)<\/span>(?=[^<]*(?:<span class="md-nowrap">|<\/p>))/g,
      ),
    ];
    expect(glued.map((m) => [m[1], m[2]])).toEqual([
      ['', '.'],
      ['(', '),'],
      ['', '!'],
    ]);
    expect(out).toContain(' Then ');
  });

  it('leaves maths with no touching punctuation, and display maths, unwrapped', () => {
    const out = html('a $x$ b\n\n$$\ny\n$$\n\n.');
    expect(out).not.toContain('md-nowrap');
  });
});

describe('normalizeMath on arbitrary text', () => {
  it('never throws, leaves text without \\( \\[ or \\boxed alone, and keeps fenced code byte for byte', async () => {
    const { normalizeMath } = await import('./latex.ts');
    const pieces = [
      '\\(',
      '\\)',
      '\\[',
      '\\]',
      '\\boxed',
      '{',
      '}',
      '$',
      '$$',
      '`',
      '```',
      '\\',
      '\n',
      '\n\n',
      '    ',
      '- ',
      '> ',
      'x',
      ' ',
      '.',
    ];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let n = 0; n < 3000; n++) {
      const len = 1 + Math.floor(next() * 40);
      const text = Array.from({ length: len }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      const out = normalizeMath(text);
      expect(typeof out).toBe('string');
      if (!/\\[([]|\\boxed/.test(text)) expect(out).toBe(text);
      const fenced = `before\n\n\`\`\`\n${text.replace(/`/g, '')}\n\`\`\`\n`;
      expect(normalizeMath(fenced)).toContain(`\`\`\`\n${text.replace(/`/g, '')}\n\`\`\``);
    }
  });
});
