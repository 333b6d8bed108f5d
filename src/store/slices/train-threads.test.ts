import { describe, expect, it } from 'vitest';
import { threadsOf } from './train-threads.ts';

describe('a run start’s thread settings', () => {
  it('sends the simulator threads alone, and none of them beside rollout workers', () => {
    expect(threadsOf({ sim: 4, rollouts: 1 })).toEqual({ simThreads: 4, rolloutThreads: 1 });
    expect(threadsOf({ sim: 'auto', rollouts: 1 })).toEqual({ simThreads: 'auto', rolloutThreads: 1 });
    expect(threadsOf({ sim: 4, rollouts: 2 })).toEqual({ simThreads: 1, rolloutThreads: 2 });
    expect(threadsOf({ sim: 1, rollouts: 'auto' })).toEqual({ simThreads: 1, rolloutThreads: 'auto' });
  });
});
