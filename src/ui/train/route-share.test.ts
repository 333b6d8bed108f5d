import { describe, expect, it } from 'vitest';
import { parseHash, routeKey } from '../app/route.ts';

describe('shared training run route', () => {
  it('reads #r=… as a shared run and keeps its input whole', () => {
    const r = parseHash('#r=1.abc-_def');
    expect(r).toEqual({ page: 'trainrun', input: 'r=1.abc-_def' });
    expect(routeKey(r)).toBe('trainrun');
    // Trace links and pages are unchanged.
    expect(parseHash('#t=1.abc').page).toBe('share');
    expect(parseHash('#/train').page).toBe('train');
  });
});
