import { describe, expect, it } from 'vitest';
import { parseHash, routeKey, traceHash } from './route.ts';

describe('parseHash', () => {
  it('reads the gallery from an empty or root hash', () => {
    expect(parseHash('')).toEqual({ page: 'gallery' });
    expect(parseHash('#')).toEqual({ page: 'gallery' });
    expect(parseHash('#/')).toEqual({ page: 'gallery' });
  });

  it('reads trace routes, with and without an id', () => {
    expect(parseHash('#/trace/t-abc.1')).toEqual({ page: 'trace', id: 't-abc.1' });
    expect(parseHash('#/trace')).toEqual({ page: 'trace', id: null });
    expect(parseHash(traceHash('a:b'))).toEqual({ page: 'trace', id: 'a:b' });
  });

  it('keeps share links whole for the decoder', () => {
    expect(parseHash('#t=1.abc')).toEqual({ page: 'share', input: 't=1.abc' });
  });

  it('knows every page and flags anything else', () => {
    expect(parseHash('#/train')).toEqual({ page: 'train' });
    expect(parseHash('#/eval')).toEqual({ page: 'eval' });
    expect(parseHash('#/orchestrate')).toEqual({ page: 'orchestrate' });
    expect(parseHash('#/orchestrate/x')).toEqual({ page: 'unknown', path: 'orchestrate/x' });
    expect(parseHash('#/train/x')).toEqual({ page: 'unknown', path: 'train/x' });
    expect(parseHash('#/settings/')).toEqual({ page: 'settings' });
    expect(parseHash('#/nope')).toEqual({ page: 'unknown', path: 'nope' });
    expect(parseHash('#/trace/%E0%A4%A')).toEqual({ page: 'unknown', path: 'trace/%E0%A4%A' });
  });

  it('gives each trace its own boundary key', () => {
    expect(routeKey({ page: 'trace', id: 'a' })).not.toBe(routeKey({ page: 'trace', id: 'b' }));
  });
});
