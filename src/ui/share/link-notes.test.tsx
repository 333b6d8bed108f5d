import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodeTraceLink, smallestLink } from '../../share/index.ts';
import { diagramOnlyTrace, incompressibleBase64, sampleTrace } from '../../../tests/support/sample-traces.ts';
import { linkNotes } from './link-notes.ts';
import { ShareDialog } from './ShareDialog.tsx';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('what a share link lacks', () => {
  const slide = diagramOnlyTrace({ diagramChars: 120_000 });

  it('warns before trimming a design that exists only as a diagram', () => {
    const notes = linkNotes(slide, encodeTraceLink(slide));
    expect(notes.smallerLoses).toContain('only record of this trace');
    expect(notes.noDesign).toBeNull();
  });

  it('says a fitted link has no design and offers the file', () => {
    const notes = linkNotes(slide, smallestLink(slide));
    expect(notes.noDesign).toContain('120,022 characters');
    expect(notes.noDesign).toContain('no design');
    expect(notes.noDesign).toContain('Download the JSON file');
    expect(notes.diagramLeftOut).toBeNull();
  });

  it('mentions a dropped diagram quietly when the agents still show the design', () => {
    const t = {
      ...sampleTrace({ seed: 6, shape: 'cot' }),
      diagram: `data:image/png;base64,${incompressibleBase64(4000, 9)}`,
    };
    const notes = linkNotes(t, encodeTraceLink(t, { trimOutputsTo: 50 }));
    expect(notes.noDesign).toBeNull();
    expect(notes.diagramLeftOut).toContain('left out');
    expect(linkNotes(t, encodeTraceLink(t))).toEqual({
      noDesign: null,
      smallerLoses: null,
      diagramLeftOut: null,
    });
  });

  it('the share dialog shows the warning with the over-budget advice', () => {
    vi.stubGlobal('location', { origin: 'https://baton.example', pathname: '/' });
    const html = renderToStaticMarkup(<ShareDialog trace={slide} onClose={() => undefined} />);
    expect(html).toContain('data-testid="share-over-budget"');
    expect(html).toContain('data-testid="share-smaller-loses"');
    expect(html).toContain('only record of this trace');
  });
});
