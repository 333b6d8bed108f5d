import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder } from '../../tests/server/design-script.ts';
import { defaultResponder, startOpenAIServer, type OpenAIServer } from '../../tests/server/openai-server.ts';
import { EvalConfigSchema, type EvalRow } from '../eval/index.ts';
import { channelEvalWorker } from './eval.local.ts';

/**
 * The Evaluate page's worker runs `orchestrator:provider` beside `cot` on the Settings provider (the
 * local OpenAI-wire server, each design conversation answered with a broken design, then a good
 * one): the method's rows count the design calls, and the document's spend is the server's bill.
 */
const KEY = 'sk-test-EVALORCH-Wq8Zr2Lm5Nx';
const MODEL = 'gpt-4.1-mini';
const PRICES = { [MODEL]: { inputPerMTok: 0.4, outputPerMTok: 1.6 } };
let server: OpenAIServer;
const bill = { tokens: 0, usd: 0 };
beforeAll(async () => {
  server = await startOpenAIServer({
    apiKey: KEY,
    responder: designScriptResponder(defaultResponder, [BROKEN_DESIGNS[2]!.xml, GOOD_DESIGN]),
    onBilled: (u) => {
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * 0.4 + u.completion_tokens * 1.6) / 1e6;
    },
  });
});
afterAll(() => server.close());

describe('orchestrator:provider in the evaluation worker', () => {
  const worker = channelEvalWorker();
  afterAll(() => worker.close());
  it("counts the orchestrator's calls in the method's rows and the evaluation's spend", async () => {
    const config = EvalConfigSchema.parse({
      methods: [
        { kind: 'agent', agent: 'cot' },
        { kind: 'orchestrator', model: 'provider' },
      ],
      taskSet: { kind: 'masbench', axes: [{ axis: 'depth', values: [2] }], n: 2, seed: 0, split: 'test' },
      seeds: [0],
      backend: { kind: 'remote', provider: 'custom', baseUrl: server.baseUrl, model: MODEL },
      budget: { tokens: 200_000, usd: 1 },
    });
    const rows: EvalRow[] = [];
    const r = await worker.evaluate(
      {
        config,
        done: [],
        concurrency: 2,
        createdAt: new Date().toISOString(),
        provider: { provider: 'custom', baseUrl: server.baseUrl, model: MODEL, apiKey: KEY, prices: PRICES },
        repairTurns: 1,
      },
      { onProgress: (p) => (p.kind === 'row' ? rows.push(p.row) : undefined) },
    );
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const orch = rows.filter((x) => x.method === 'orchestrator:provider');
    expect(orch).toHaveLength(2);
    for (const row of orch) expect(row.orchestrator?.calls).toBe(2);
    expect(r.value.spend.tokens).toBe(bill.tokens);
    expect(r.value.spend.usd).toBeCloseTo(bill.usd, 10);
    expect(r.value.summary.methods.find((m) => m.method === 'orchestrator:provider')?.available).toBe(true);
  }, 60_000);
});
