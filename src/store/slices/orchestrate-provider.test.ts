import 'fake-indexeddb/auto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder } from '../../../tests/server/design-script.ts';
import {
  defaultResponder,
  startOpenAIServer,
  type OpenAIServer,
} from '../../../tests/server/openai-server.ts';
import { configureKeys, memoryKeyStore, type KeyStorages } from '../services/keys.ts';
import { resetBaton, useBaton } from '../store.ts';
import { orchestrateBlockers } from './orchestrate.ts';
import { budgetAfterDesign } from './orchestrate-provider.ts';
import { providerDesignPreview } from './orchestrate-provider-preview.ts';

/**
 * The Orchestrate page's provider path below the UI: the Settings provider (the local OpenAI-wire
 * server, scripted with broken designs first) writes the design; the attempts, the check, the
 * interrupt, the budget shared with the run, and the query and settings kept through failures.
 */
const s = () => useBaton.getState();
const KEY = `sk-test-ORCH-${Math.random().toString(36).slice(2)}`;
const MODEL = 'gpt-4.1-mini';
const QUERY = 'Compare the GDP growth of France and Germany in 2023';

let server: OpenAIServer;
let keys: KeyStorages;
let bill = { tokens: 0, usd: 0 };

beforeAll(async () => {
  server = await startOpenAIServer({
    apiKey: KEY,
    responder: designScriptResponder(defaultResponder, [
      BROKEN_DESIGNS[0]!.xml,
      BROKEN_DESIGNS[3]!.xml,
      GOOD_DESIGN,
    ]),
    onBilled: (u) => {
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * 0.4 + u.completion_tokens * 1.6) / 1e6;
    },
  });
  keys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
});
afterAll(async () => {
  configureKeys(keys);
  await server.close();
});
beforeEach(() => {
  resetBaton();
  server.reset();
  bill = { tokens: 0, usd: 0 };
  s().selectProvider('custom');
  s().setBaseUrl(server.baseUrl);
  s().setModel(MODEL);
  s().setApiKey(KEY, false);
  s().setPrice(MODEL, { inputPerMTok: 0.4, outputPerMTok: 1.6 });
  s().setOrchDraft({ orchestrator: 'provider', query: QUERY });
});

describe('the Settings provider as the orchestrator', () => {
  it('needs no loaded model, only the provider', () => {
    expect(orchestrateBlockers(s())).toEqual([]);
    s().setModel('');
    expect(orchestrateBlockers(s())).toContain('Settings: choose a model.');
  });

  it('reaches a valid design in the default two repair turns, every attempt with its problems, billed as the server billed', async () => {
    expect(s().repairTurns).toBe(2);
    await s().startOrchestrate();
    const g = s().orchGen!;
    expect(g.status).toBe('done');
    expect(g.check?.valid).toBe(true);
    expect(g.attempts?.map((a) => a.valid)).toEqual([false, false, true]);
    expect(g.attempts?.[0]?.problems.some((p) => p.startsWith('rule 9:'))).toBe(true);
    expect(g.attempts?.[1]?.problems.some((p) => p.startsWith('rule 4:'))).toBe(true);
    expect(g.text).toBe(GOOD_DESIGN);
    const d = g.result!.designer;
    if (d.kind !== 'orchestrator') throw new Error('designer');
    expect(d.usedAttempt).toBe(2);
    expect(d.usage!.promptTokens + d.usage!.completionTokens).toBe(bill.tokens);
    expect(d.usage!.costUsd).toBeCloseTo(bill.usd, 12);
    expect(JSON.stringify(g)).not.toContain(KEY);
  });

  it('the run after the design gets what the design left of the Settings limits', async () => {
    s().setBudget({ totalTokens: 100_000, totalUsd: 1, perAgentTokens: 50_000 });
    await s().startOrchestrate();
    const left = budgetAfterDesign(
      { totalTokens: 100_000, totalUsd: 1, perAgentTokens: 50_000 },
      s().orchGen!,
    );
    expect(left.totalTokens).toBe(100_000 - bill.tokens);
    expect(left.totalUsd).toBeCloseTo(1 - bill.usd, 12);
    expect(left.perAgentTokens).toBe(50_000);
  });

  it('with fewer repair turns (Settings) stops with the problems shown and the query kept', async () => {
    s().setRepairTurns(1);
    await s().startOrchestrate();
    const g = s().orchGen!;
    expect(g.status).toBe('done');
    expect(g.check?.valid).toBe(false);
    expect(g.check?.lines[0]).toBe('no valid design after 2 attempts (1 repair turn)');
    expect(g.check?.lines.some((l) => l.startsWith('rule 4:'))).toBe(true);
    expect(s().orchDraft.query).toBe(QUERY);
    expect(s().orchDraft.orchestrator).toBe('provider');
  });

  it('a budget too small for a design call refuses it, saying what is spent and held', async () => {
    s().setBudget({ totalTokens: 2500, totalUsd: null });
    const preview = providerDesignPreview(s(), QUERY, 'auto');
    expect(preview.tokens).toBeGreaterThan(2500);
    expect(preview.limitTokens).toBe(2500);
    await s().startOrchestrate();
    const g = s().orchGen!;
    expect(g.status).toBe('error');
    expect(g.problems[0]?.message).toMatch(/attempt 1 was not sent: budget: Not sent.*spent 0 tokens/);
    expect(bill.tokens).toBe(0);
  });

  it('the JSON schema from Settings: the preview counts its note, the design is asked for and recorded as json-schema', async () => {
    const xml = providerDesignPreview(s(), QUERY, 'auto');
    s().setDesignOutput('json-schema');
    const schema = providerDesignPreview(s(), QUERY, 'auto');
    expect(schema.tokens).toBeGreaterThan(xml.tokens);
    await s().startOrchestrate();
    const g = s().orchGen!;
    expect(g.check?.valid).toBe(true);
    const d = g.result!.designer;
    expect(d.kind === 'orchestrator' && d.output).toBe('json-schema');
    // The worst case shown before the run holds what was spent.
    expect(
      d.kind === 'orchestrator' && d.usage!.promptTokens + d.usage!.completionTokens,
    ).toBeLessThanOrEqual(schema.tokens);
    expect(g.text.trim().startsWith('{')).toBe(true);
  });

  it('a local server without a price works under a token limit and no dollar limit', async () => {
    s().setModel('llama3.2');
    s().setBudget({ totalTokens: 50_000, totalUsd: 1 });
    await s().startOrchestrate();
    // A dollar limit with no price refuses, and says why.
    expect(s().orchGen!.problems[0]?.message).toMatch(/no price is known for model "llama3.2"/);
    s().setBudget({ totalUsd: null });
    expect(providerDesignPreview(s(), QUERY, 'auto').usd).toBeUndefined();
    await s().startOrchestrate();
    const g = s().orchGen!;
    expect(g.check?.valid).toBe(true);
    const d = g.result!.designer;
    expect(d.kind === 'orchestrator' && d.usage?.costUsd).toBeUndefined();
    expect(d.kind === 'orchestrator' && d.usage!.promptTokens + d.usage!.completionTokens).toBe(bill.tokens);
  });

  it('Interrupt keeps what was written', async () => {
    server.setFaults({ once: [{ chunkDelayMs: 10 }] });
    const done = s().startOrchestrate();
    await new Promise<void>((resolve) => {
      const stop = useBaton.subscribe((st) => {
        if ((st.orchGen?.text.length ?? 0) > 40) {
          stop();
          resolve();
        }
      });
    });
    s().interruptOrchestrate();
    await done;
    const g = s().orchGen!;
    expect(g.status).toBe('interrupted');
    expect(g.text.length).toBeGreaterThan(40);
    expect(BROKEN_DESIGNS[0]!.xml.startsWith(g.text)).toBe(true);
    expect(g.attempts?.[0]?.error).toMatch(/^aborted/);
  });
});
