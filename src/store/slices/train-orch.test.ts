import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import {
  configureOrchTrain,
  type OrchTrainClient,
  type OrchTrainEnv,
} from '../services/train-orchestrator.ts';
import { resetBaton, useBaton } from '../store.ts';
import { orchRunFile, withOrchModel } from './train-orch-run.ts';
import { DEFAULT_ORCH_FORM, IDLE_ORCH_TRAIN } from './train-orch.ts';

/**
 * The orchestrator mode's slice against a recording stand-in for its training worker: which SFT
 * model folder and which config a Start and a Resume send, and the run file the page downloads.
 * (The worker itself runs in tests/e2e/train-orchestrator.e2e.ts.)
 */
interface Call {
  method: string;
  input: Record<string, unknown>;
}

const METRICS = {
  iteration: 1,
  samples: 4,
  reward: 0.5,
  rewardStd: 0.1,
  accuracy: 0.5,
  tokensPerTask: 700,
  designTokens: 120,
  forcedShare: 0.4,
  agents: 2,
  depth: 2,
  validity: 1,
  lowDomDelegated: 1,
  kl: 0.01,
  entropy: 0.7,
  clipFraction: 0,
  loss: 0.1,
  gradNorm: 1,
  updates: 1,
  trainedTokens: 500,
};

function fakeClient(saved: { model: string; config: Record<string, unknown> } | null): {
  client: OrchTrainClient;
  calls: Call[];
} {
  const calls: Call[] = [];
  const runInfo = (model: string, iteration: number) => ({
    iteration,
    model,
    config: saved?.config ?? {},
    history: iteration > 0 ? [METRICS] : [],
  });
  const call = async (
    method: string,
    input: Record<string, unknown>,
    opts?: { onProgress?: (p: unknown) => void },
  ): Promise<{ ok: true; value: unknown }> => {
    calls.push({ method, input });
    await Promise.resolve();
    switch (method) {
      case 'orchSaved':
        return { ok: true, value: saved ? runInfo(saved.model, 1) : null };
      case 'orchStart': {
        const id = String(input.folder);
        return {
          ok: true,
          value: {
            backend: 'wasm',
            reason: 'stand-in',
            run: runInfo(id, input.resume ? 1 : 0),
            model: { id, name: id, params: 1000, positions: 256 },
          },
        };
      }
      case 'orchRun':
        opts?.onProgress?.({ kind: 'iteration', metrics: METRICS, sampled: [], ms: 1 });
        return { ok: true, value: { iteration: 1, backend: { backend: 'wasm', reason: 'stand-in' } } };
      case 'orchSave':
        return {
          ok: true,
          value: runInfo(String(calls.find((c) => c.method === 'orchStart')?.input.folder), 1),
        };
      default:
        return { ok: true, value: {} };
    }
  };
  return { client: { call } as unknown as OrchTrainClient, calls };
}

let previous: OrchTrainEnv | null = null;
const use = (client: OrchTrainClient): void => {
  const p = configureOrchTrain({ client: async () => client, baseUrl: () => 'http://localhost/' });
  previous ??= p;
};
afterAll(() => {
  if (previous) configureOrchTrain(previous);
});
beforeEach(async () => {
  const { client } = fakeClient(null);
  use(client);
  await useBaton.getState().resetOrchTrain();
  resetBaton();
});

const starts = (calls: Call[]): Call[] => calls.filter((c) => c.method === 'orchStart');

describe('the Orchestrator LM mode: the SFT model a run starts from', () => {
  it('picking v2 sets its design length and axis values 2–12, and Start sends its folder and values', async () => {
    const { client, calls } = fakeClient(null);
    use(client);
    await useBaton.getState().setOrchModel('baton-orchestrator-tiny-v2');
    const form = useBaton.getState().orchForm;
    expect(form.sftModel).toBe('baton-orchestrator-tiny-v2');
    expect(form.maxNewTokens).toBeGreaterThanOrEqual(400);
    expect(form.values).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    await useBaton.getState().startOrchTrain();
    const [start] = starts(calls);
    expect(start?.input.folder).toBe('baton-orchestrator-tiny-v2');
    expect(start?.input.resume).toBe(false);
    const config = start?.input.config as Record<string, unknown>;
    expect(config.maxNewTokens).toBe(form.maxNewTokens);
    expect(config.values).toEqual(form.values);
    expect(useBaton.getState().orchTrain.model?.id).toBe('baton-orchestrator-tiny-v2');
  });

  it('v1 stays the default, with its own settings', async () => {
    expect(useBaton.getState().orchForm.sftModel).toBe('baton-orchestrator-tiny');
    const back = withOrchModel(
      withOrchModel(DEFAULT_ORCH_FORM, 'baton-orchestrator-tiny-v2'),
      'baton-orchestrator-tiny',
    );
    expect(back).toEqual(DEFAULT_ORCH_FORM);
    const { client, calls } = fakeClient(null);
    use(client);
    await useBaton.getState().startOrchTrain();
    expect(starts(calls)[0]?.input.folder).toBe('baton-orchestrator-tiny');
  });

  it('after a reload, Resume continues the saved run’s model even when the form picks another', async () => {
    const { client, calls } = fakeClient({
      model: 'baton-orchestrator-tiny-v2',
      config: { maxNewTokens: 448, values: [2, 7, 12], evalTasks: 30 },
    });
    use(client);
    await useBaton.getState().initOrchTrain();
    const form = useBaton.getState().orchForm;
    expect(form.sftModel).toBe('baton-orchestrator-tiny-v2');
    expect(form.maxNewTokens).toBe(448);
    expect(form.values).toEqual([2, 7, 12]);
    expect(form.evalTasks).toBe(30);
    await useBaton.getState().setOrchModel('baton-orchestrator-tiny');
    await useBaton.getState().stepOrchTrain();
    const [start] = starts(calls);
    expect(start?.input.resume).toBe(true);
    expect(start?.input.folder).toBe('baton-orchestrator-tiny-v2');
  });
});

describe('the run file of "Download metrics"', () => {
  it('is null before the first iteration, then holds the model, settings, metrics and evaluation', () => {
    expect(orchRunFile(DEFAULT_ORCH_FORM, IDLE_ORCH_TRAIN)).toBeNull();
    const form = withOrchModel(DEFAULT_ORCH_FORM, 'baton-orchestrator-tiny-v2');
    const f = orchRunFile(form, {
      ...IDLE_ORCH_TRAIN,
      iteration: 1,
      backend: { backend: 'wasm', reason: 'probe' },
      history: [METRICS],
    });
    expect(f?.name).toBe('baton-orchestrator-tiny-v2-grpo-1.metrics.json');
    const body = JSON.parse(f?.text ?? '{}') as Record<string, unknown>;
    expect(body.format).toBe('baton.orchestrator-run/1');
    expect(body.backend).toEqual({ backend: 'wasm', reason: 'probe' });
    expect((body.settings as { values: number[] }).values).toHaveLength(11);
    expect(body.history).toEqual([METRICS]);
    expect(body.evaluation).toBeNull();
  });
});
