import { describe, expect, it } from 'vitest';
import { fail, ok } from '../../core/result.ts';
import type { OrchestratorWorkerClient } from '../../workers/index.ts';
import { workerRuntime } from './orchestrator.ts';

/**
 * A failed load replaces the worker: the real one in Chromium could not read a good model after a
 * truncated one until it was replaced (tests/e2e/orchestrate.e2e.ts loads one after the other).
 * Here the clients are stand-ins that count how they are used.
 */
function counting(loads: ('ok' | 'bad')[]) {
  const made: { disposed: boolean }[] = [];
  const make = (): OrchestratorWorkerClient => {
    const me = { disposed: false };
    made.push(me);
    const answer = loads.shift() ?? 'ok';
    return {
      manifest: () => Promise.resolve(fail({ code: 'E_MODEL_MANIFEST', message: 'none' })),
      load: (input) =>
        Promise.resolve(
          answer === 'bad'
            ? fail({ code: 'E_MODEL_FILE', message: 'cut short' })
            : ok({
                id: input.model,
                label: input.model,
                entry: null,
                dtype: 'q8' as const,
                device: 'wasm' as const,
                deviceReason: 'wasm, as asked',
                promptFormat: 'tiny' as const,
                vocabSize: 300,
                files: [],
                loadMs: 1,
                warmupMs: 1,
              }),
        ),
      generate: () => Promise.resolve(fail({ code: 'E_MODEL_NOT_LOADED', message: 'no' })),
      interrupt: () => Promise.resolve(ok({ interrupted: false })),
      clearCache: () => Promise.resolve(ok({ deleted: 2 })),
      unload: () => Promise.resolve(ok({ disposed: true })),
      dispose: () => {
        me.disposed = true;
      },
    } as OrchestratorWorkerClient;
  };
  return { make, made };
}

describe('the orchestrator runtime over the worker', () => {
  it('starts a fresh worker after a failed load, and keeps the worker of a good one', async () => {
    const c = counting(['bad', 'ok']);
    const rt = workerRuntime(c.make, () => 'http://127.0.0.1/');
    const bad = await rt.load({ model: 'm', device: 'wasm', dtype: 'auto' });
    expect(!bad.ok && bad.errors[0]?.code).toBe('E_MODEL_FILE');
    expect(c.made).toEqual([{ disposed: true }]);
    const good = await rt.load({ model: 'm', device: 'wasm', dtype: 'auto' });
    expect(good.ok && good.value.device).toBe('wasm');
    expect(c.made).toEqual([{ disposed: true }, { disposed: false }]);
    const cleared = await rt.clearCache();
    expect(cleared.ok && cleared.value.removed).toBe(2);
    expect(c.made.length).toBe(2);
  });
});
