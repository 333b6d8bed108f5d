import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';

vi.mock('katex/dist/katex.min.css', () => ({}));
vi.mock('./markdown.css', () => ({}));

const { Markdown } = await import('./Markdown.tsx');
const { safeUrl } = await import('./safety.ts');

const html = (text: string): string => renderToStaticMarkup(<Markdown text={text} />);

describe('Markdown', () => {
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
