import { describe, expect, it } from 'vitest';
import { parseHash, routeKey } from '../app/route.ts';

describe('shared evaluation route', () => {
  it('reads #e=… as shared results and keeps its input whole', () => {
    const r = parseHash('#e=1.abc-_def');
    expect(r).toEqual({ page: 'evalshared', input: 'e=1.abc-_def' });
    expect(routeKey(r)).toBe('evalshared');
    // The page itself and the other links are unchanged.
    expect(parseHash('#/eval').page).toBe('eval');
    expect(parseHash('#r=1.abc').page).toBe('trainrun');
    expect(parseHash('#t=1.abc').page).toBe('share');
  });
});
