import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../../tests/server/openai-server.ts';
import { generateTask, taskOfMasbench, type MasBenchTask } from '../masbench/index.ts';
import {
  ActionRewardConfigSchema,
  DEFAULT_POOL,
  PolicyNetwork,
  construct,
  priorCheckpoint,
} from '../policy/index.ts';
import type { RemoteSpec } from './backend-spec.ts';
import { designOf } from './test-helpers.ts';
import {
  TrainBudgetExceeded,
  providerTrainRunners,
  type ProviderTrainRunners,
} from './train-provider-runners.ts';

let server: OpenAIServer;
let net: PolicyNetwork;
beforeAll(async () => {
  server = await startOpenAIServer();
  net = await PolicyNetwork.create(priorCheckpoint(DEFAULT_POOL), {
    backend: 'cpu',
    reason: 'test',
    adapter: null,
    ctx: null,
  });
});
afterAll(async () => {
  net.dispose();
  await server.close();
});
beforeEach(() => server.reset());

const task: MasBenchTask = generateTask({ axis: 'depth', value: 2, seed: 11 });
const spec = (apiKey = ''): RemoteSpec => ({
  kind: 'remote',
  provider: 'openai-compatible',
  baseUrl: server.baseUrl,
  model: 'test-model',
  apiKey,
  prices: { 'test-model': { inputPerMTok: 10, outputPerMTok: 20 } },
});
const chats = (): number => server.requests.filter((r) => r.path === '/v1/chat/completions').length;

/** One construction by the prior with intermediate answers, then its final run, as the trainer does it. */
async function rollout(p: ProviderTrainRunners): Promise<{ correct: boolean | null; tokens: number }> {
  const r = p.runners(task, 1);
  const c = await construct({
    policy: net,
    pool: DEFAULT_POOL,
    task: taskOfMasbench(task),
    seed: 1,
    greedy: true,
    temperature: 1,
    maxSteps: 10,
    rewards: ActionRewardConfigSchema.parse({}),
    runner: r.intermediate,
  });
  return r.final(c.trace);
}

describe('providerTrainRunners', () => {
  it('runs partial and final designs on the provider and counts every request it sent', async () => {
    const p = providerTrainRunners(spec(), { tokens: 1_000_000, usd: 10 });
    const out = await rollout(p);
    expect(out.tokens).toBeGreaterThan(0);
    const s = p.spent();
    expect(s.calls).toBeGreaterThan(1);
    // Cached replies are not requests: the server saw exactly the requests counted.
    expect(chats()).toBe(s.calls);
    expect(s.tokens).toBeGreaterThanOrEqual(out.tokens);
    expect(s.usd).toBeGreaterThan(0);
    expect(p.exhausted()).toBeNull();
  });

  it('retries injected 503s and 429s and goes on', async () => {
    server.setFaults({ once: [{ status: 503 }, { status: 429, retryAfter: '0' }] });
    const p = providerTrainRunners(spec(), { tokens: 1_000_000 });
    const out = await rollout(p);
    expect(out.tokens).toBeGreaterThan(0);
    expect(chats()).toBe(p.spent().calls + 2);
  });

  it('stops with TrainBudgetExceeded before a request could cross the token budget, and sends nothing after', async () => {
    const p = providerTrainRunners(spec(), { tokens: 3000 });
    const err = await rollout(p).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TrainBudgetExceeded);
    expect((err as Error).message).toMatch(/training stopped: the budget \(3000 tokens\) would be exceeded/);
    expect(p.spent().tokens).toBeLessThanOrEqual(3000);
    expect(p.exhausted()).not.toBeNull();
    const sent = chats();
    await expect(rollout(p)).rejects.toBeInstanceOf(TrainBudgetExceeded);
    expect(chats()).toBe(sent);
  });

  it('enforces the dollar budget and refuses a model without a price under it', async () => {
    const p = providerTrainRunners(spec(), { tokens: 1_000_000, usd: 0.05 });
    await expect(rollout(p)).rejects.toBeInstanceOf(TrainBudgetExceeded);
    expect(p.spent().usd).toBeLessThanOrEqual(0.05);
    const unpriced = providerTrainRunners(
      { ...spec(), model: 'unknown-model', prices: {} },
      { tokens: 1_000_000, usd: 1 },
    );
    const before = chats();
    await expect(rollout(unpriced)).rejects.toThrow(/no price is known/);
    expect(chats()).toBe(before);
  });

  it('keeps the API key out of problems and errors, and refuses a run without a token budget', async () => {
    const keyed = await startOpenAIServer({ apiKey: 'sk-right', echoKeyInErrors: true });
    try {
      const key = 'sk-wrong-SECRET-123456';
      const p = providerTrainRunners({ ...spec(key), baseUrl: keyed.baseUrl }, { tokens: 1_000_000 });
      const r = p.runners(task, 1);
      const step = await r.intermediate(designOf([{ id: 'a' }]), taskOfMasbench(task));
      expect(step.correct).toBeNull();
      expect(JSON.stringify(step)).not.toContain(key);
      expect(JSON.stringify(step)).toMatch(/401|unauthori|key/i);
    } finally {
      await keyed.close();
    }
    expect(() => providerTrainRunners(spec(), { tokens: 0 })).toThrow(/token budget/);
  });
});
