/**
 * The training session asks the backend chooser to time its own work: `start` hands `choose` a
 * workload of one training iteration of the run's config (src/train/backend-probe.ts), which `auto`
 * times on a hardware adapter in place of the generic probe step, and the reason it gives is the
 * reason the page shows.
 */
import { describe, expect, it } from 'vitest';
import type { BackendChoice, BackendPreference, ProbeWorkload } from '../gpu/index.ts';
import { trainConfig } from '../train/index.ts';
import { trainHandlers } from './train.session.ts';

describe('the training session and the backend probe', () => {
  it('passes one iteration of the run’s config as the workload, and reports the chooser’s reason', async () => {
    const asked: { prefer: BackendPreference; workload: ProbeWorkload | undefined }[] = [];
    let cpuMs = NaN;
    const handlers = trainHandlers({
      choose: async (prefer, _onLost, workload) => {
        asked.push({ prefer, workload });
        // The workload really trains: time it on the CPU backend, as auto would on the CPU side.
        if (workload) {
          const t = await workload.time('cpu', null, 'cpu');
          cpuMs = typeof t === 'number' ? t : NaN;
        }
        const c: BackendChoice = {
          backend: 'cpu',
          reason: `timed: ${workload?.unit ?? 'nothing'}`,
          adapter: null,
          ctx: null,
        };
        return c;
      },
    });
    const config = trainConfig({
      tasksPerIteration: 2,
      groupSize: 3,
      epochs: 1,
      minibatch: 16,
      evalEvery: 0,
    });
    const started = await handlers.start(
      { config, from: { kind: 'prior' }, backend: 'auto', simThreads: 'auto', rolloutThreads: 1 },
      {} as never,
    );
    expect(asked).toHaveLength(1);
    expect(asked[0]?.prefer).toBe('auto');
    expect(asked[0]?.workload?.unit).toBe('training iteration (6 episodes)');
    expect(cpuMs).toBeGreaterThan(0);
    expect(started.backend).toBe('cpu');
    expect(started.reason).toBe('timed: training iteration (6 episodes)');
    // The probe's iterations are not the run's: it starts at iteration 0.
    expect(started.iteration).toBe(0);
    await handlers.reset(undefined as never, {} as never);
  });
});
