import { describe, expect, it } from 'vitest';
import type { BackendChoice, GpuContext } from '../gpu/index.ts';
import type { OrchMetrics, OrchProgress } from './train-orchestrator.methods.ts';
import { orchTrainHandlers, type OrchTrainLib, type OrchTrainerPort } from './train-orchestrator.session.ts';

/**
 * Device loss in the orchestrator mode's session, at its seams: a WebGPU context whose device the
 * session's test hook destroys, and a trainer stand-in that fails an iteration on a lost device (as
 * a read-back does) and counts iterations in its checkpoint text (`ckpt:N`). The real trainer on the
 * real SwiftShader device is driven in Chromium by tests/e2e/train-orchestrator-device.e2e.ts.
 */

function fakeContext(): GpuContext {
  const ctx = { lost: false, device: { destroy: () => (ctx.lost = true) }, dispose: () => undefined };
  return ctx as unknown as GpuContext;
}

function fakeLib(created: { backend: string; checkpoint: string | undefined }[]): OrchTrainLib {
  return {
    readModel: () => ({ name: 'm', params: 10, positions: 16 }),
    create({ choice, checkpoint }) {
      created.push({ backend: choice.backend, checkpoint });
      let iteration = checkpoint ? Number(checkpoint.slice(5)) : 0;
      const trainer: OrchTrainerPort = {
        get iteration() {
          return iteration;
        },
        history: [],
        iterate() {
          if (choice.ctx?.lost) return Promise.reject(new Error('mapAsync: the device was lost'));
          iteration += 1;
          return Promise.resolve({ iteration } as OrchMetrics);
        },
        sampled: () => [],
        checkpointText: () => Promise.resolve(`ckpt:${iteration}`),
        evaluate: () => Promise.reject(new Error('not here')),
        folder: () => new Map(),
        dispose: () => undefined,
      };
      return Promise.resolve(trainer);
    },
    runInfo: (text) => ({ iteration: Number(text.slice(5)), model: 'm', config: {}, history: [] }),
  };
}

async function lostRun(wasm: boolean) {
  const created: { backend: string; checkpoint: string | undefined }[] = [];
  const ctx = fakeContext();
  const h = orchTrainHandlers({
    lib: fakeLib(created),
    readFolder: () =>
      Promise.resolve({ config: '', tokenizer: '', tokenizerConfig: '', onnx: new Uint8Array() }),
    choose: (prefer): Promise<BackendChoice> => {
      if (prefer === 'webgpu')
        return Promise.resolve({
          backend: 'webgpu',
          reason: 'WebGPU forced on a test device',
          adapter: null,
          ctx,
        });
      if (prefer === 'wasm' && wasm)
        return Promise.resolve({
          backend: 'wasm',
          reason: 'WebAssembly SIMD backend forced, one thread',
          adapter: null,
          ctx: null,
        });
      return Promise.reject(new Error('the wasm backend was forced but WebAssembly SIMD is not available'));
    },
  });
  const signal = new AbortController().signal;
  const reports: OrchProgress[] = [];
  const ctxOf = { signal, progress: (p: OrchProgress) => reports.push(p) };
  const start = await h.orchStart(
    { baseUrl: 'http://app.test/', folder: 'm', config: {}, resume: false, backend: 'webgpu' },
    { signal, progress: () => undefined },
  );
  expect(start.backend).toBe('webgpu');
  await h.orchRun({ iterations: 2, snapshotEvery: 10 }, ctxOf);
  expect(await h.orchLoseDevice({ afterIterations: 0 }, { signal, progress: () => undefined })).toEqual({
    armed: true,
  });
  const end = await h.orchRun({ iterations: 2, snapshotEvery: 10 }, ctxOf);
  return { created, reports, end };
}

describe('device loss in orchestrator training', () => {
  it('drops the iteration in flight and resumes from the last checkpoint on WebAssembly SIMD, saying why', async () => {
    const { created, reports, end } = await lostRun(true);
    // The trainer was built again from the checkpoint of iteration 2, on wasm.
    expect(created).toEqual([
      { backend: 'webgpu', checkpoint: undefined },
      { backend: 'wasm', checkpoint: 'ckpt:2' },
    ]);
    const kinds = reports.map((p) => (p.kind === 'iteration' ? `it${p.metrics.iteration}` : p.kind));
    expect(kinds).toEqual(['it1', 'it2', 'snapshot', 'recovered', 'it3', 'it4', 'snapshot']);
    const rec = reports.find((p) => p.kind === 'recovered');
    expect(rec).toMatchObject({ iteration: 2, backend: { backend: 'wasm' } });
    expect(rec?.kind === 'recovered' && rec.message).toBe('mapAsync: the device was lost');
    expect(rec?.kind === 'recovered' && rec.backend.reason).toBe(
      'the WebGPU device was lost (mapAsync: the device was lost): continuing on the WebAssembly SIMD backend, one thread',
    );
    expect(end).toMatchObject({ iteration: 4, backend: { backend: 'wasm' } });
  });

  it('falls back to the TypeScript CPU backend where WebAssembly SIMD is not available', async () => {
    const { created, end } = await lostRun(false);
    expect(created[1]).toEqual({ backend: 'cpu', checkpoint: 'ckpt:2' });
    expect(end.backend.backend).toBe('cpu');
    expect(end.backend.reason).toMatch(
      /device was lost .*no WebAssembly SIMD: continuing on the CPU \(TypeScript\)/,
    );
  });
});
