import { readFileSync } from 'node:fs';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { LinkWithCopy } from './LinkWithCopy.tsx';

describe('the link-with-copy component', () => {
  it('shows the link as a read-only, labelled field with its Copy button, as text', () => {
    const url = 'https://baton.example/#/t/abc?x=<b>1</b>';
    const out = renderToStaticMarkup(
      <LinkWithCopy
        url={url}
        label="Share link of the run"
        testId="train-share-link"
        copyTestId="c"
        primary
      />,
    );
    expect(out).toContain('readOnly=""');
    expect(out).toContain('aria-label="Share link of the run"');
    expect(out).toContain('data-testid="train-share-link"');
    expect(out).toContain('value="https://baton.example/#/t/abc?x=&lt;b&gt;1&lt;/b&gt;"');
    expect(out).toMatch(/class="btn btn-primary" data-testid="c">Copy</);
    expect(out).toContain('role="status"');
  });

  it('is the one link-with-copy of ShareRun, ShareResults and the share dialog', () => {
    for (const file of ['../train/ShareRun.tsx', '../eval/ShareResults.tsx', './ShareDialog.tsx']) {
      const src = readFileSync(new URL(file, import.meta.url), 'utf8');
      expect(src, file).toContain('<LinkWithCopy');
      expect(src, file).not.toContain('copyText(');
      expect(src, file).not.toContain('Copied to the clipboard');
    }
  });
});
