import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRICES } from '../../src/executor/llm/index.ts';
import { BROKEN_DESIGNS, designScriptResponder } from '../server/design-script.ts';
import { defaultResponder, startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Orchestrate page with the Settings provider as the orchestrator, in Chromium: the local
 * OpenAI-wire server answers five broken designs (a missing edge, a cycle, an unknown agent type,
 * two sinks, an undeclared id) and then a good one; with five repair turns set in Settings, the
 * page lists every attempt with its problems, ends with a valid design, and the orchestrator cost
 * it records equals the server's own bill. The key is in every request and nowhere on the page.
 */
const KEY = `sk-test-ORCHE2E-${Math.random().toString(36).slice(2)}`;
const MODEL = 'gpt-4.1-mini';
const QUERY = 'Compare the GDP growth of France and Germany in 2023';

let browser: Browser;
let server: OpenAIServer;
const bill = { tokens: 0, usd: 0 };
beforeAll(async () => {
  browser = await launch();
  server = await startOpenAIServer({
    apiKey: KEY,
    models: [MODEL],
    responder: designScriptResponder(defaultResponder),
    onBilled: (u, model) => {
      const p = DEFAULT_PRICES[model]!;
      bill.tokens += u.prompt_tokens + u.completion_tokens;
      bill.usd += (u.prompt_tokens * p.inputPerMTok + u.completion_tokens * p.outputPerMTok) / 1e6;
    },
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const byTest = (id: string): string => `[data-testid="${id}"]`;

describe('Orchestrate with the Settings provider', () => {
  it('repairs broken designs into a valid one, listing every attempt with its problems', async () => {
    const { page, errors, context } = await openPage(browser, '#/settings');
    await page.waitForSelector(byTest('settings-page'));
    await page.selectOption(byTest('settings-provider'), 'custom');
    await page.fill(byTest('settings-base-url'), server.baseUrl);
    await page.fill(byTest('settings-model'), MODEL);
    await page.fill(byTest('settings-api-key'), KEY);
    await page.fill(byTest('settings-repair-turns'), '5');
    await page.goto(page.url().replace(/#.*$/, '') + '#/orchestrate');
    await page.waitForSelector(byTest('orchestrate-page'));
    await page.click(byTest('orch-orchestrator-provider'));
    await page.fill(byTest('orch-query'), QUERY);
    const budget = await page.textContent(byTest('orch-provider-budget'));
    expect(budget).toMatch(/At most 6 calls, up to \d+ tokens \(\$\d+\.\d{4}\)/);
    expect(await page.textContent(byTest('orch-repair-turns'))).toBe('5');

    await page.click(byTest('orch-start'));
    await page.waitForSelector(`${byTest('orch-check')}[data-valid="true"]`, { timeout: 30_000 });
    const attempts = await page.$$eval(byTest('orch-attempt'), (els) =>
      els.map((e) => ({ valid: e.getAttribute('data-valid'), text: e.textContent ?? '' })),
    );
    expect(attempts.map((a) => a.valid)).toEqual(['false', 'false', 'false', 'false', 'false', 'true']);
    BROKEN_DESIGNS.forEach((b, i) => {
      for (const rule of b.rules) expect(attempts[i]?.text, b.what).toContain(`rule ${rule}:`);
    });
    expect(attempts[5]?.text).toContain('valid · used');
    // The orchestrator's cost the page records is the server's own bill.
    const recorded = await page.$eval(byTest('orch-attempts'), (e) => ({
      usd: Number(e.getAttribute('data-cost-usd')),
      tokens: Number(e.getAttribute('data-tokens')),
    }));
    expect(recorded.tokens).toBe(bill.tokens);
    expect(recorded.usd).toBeCloseTo(bill.usd, 12);
    // The graph of the valid design is drawn; the key is in every request and not on the page.
    expect(await page.textContent(byTest('orch-design-text'))).toContain('compare');
    const chats = server.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    expect(chats).toHaveLength(6);
    expect(chats.every((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);
    expect(await page.content()).not.toContain(KEY);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});

describe('the design in its JSON schema', () => {
  it('asks for the schema when Settings say so, reads the JSON designs, and falls back to XML when the server refuses', async () => {
    server.reset();
    const { page, errors, context } = await openPage(browser, '#/settings');
    await page.waitForSelector(byTest('settings-page'));
    await page.selectOption(byTest('settings-provider'), 'custom');
    await page.fill(byTest('settings-base-url'), server.baseUrl);
    await page.fill(byTest('settings-model'), MODEL);
    await page.fill(byTest('settings-api-key'), KEY);
    await page.fill(byTest('settings-repair-turns'), '5');
    await page.selectOption(byTest('settings-design-output'), 'json-schema');
    await page.goto(page.url().replace(/#.*$/, '') + '#/orchestrate');
    await page.waitForSelector(byTest('orchestrate-page'));
    await page.click(byTest('orch-orchestrator-provider'));
    await page.fill(byTest('orch-query'), QUERY);
    expect(await page.textContent(byTest('orch-design-output'))).toMatch(/JSON schema/);

    await page.click(byTest('orch-start'));
    await page.waitForSelector(`${byTest('orch-check')}[data-valid="true"]`, { timeout: 30_000 });
    expect(await page.getAttribute(byTest('orch-attempts-output'), 'data-output')).toBe('json-schema');
    const valid = await page.$$eval(byTest('orch-attempt'), (els) =>
      els.map((e) => e.getAttribute('data-valid')),
    );
    expect(valid).toEqual(['false', 'false', 'false', 'false', 'false', 'true']);
    // The last design text is the JSON the server wrote under the schema.
    expect((await page.textContent(byTest('orch-design-text')))?.trim().startsWith('{')).toBe(true);
    const sent = server.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    expect(sent).toHaveLength(6);
    expect(
      sent.every(
        (r) => (r.body as { response_format?: { type: string } }).response_format?.type === 'json_schema',
      ),
    ).toBe(true);

    // The same run against a server without structured output: one refused call, then XML.
    server.reset();
    server.setFaults({ refuseResponseFormat: true });
    await page.click(byTest('orch-start'));
    await page.waitForSelector(`${byTest('orch-attempts-output')}[data-output="xml"]`, { timeout: 30_000 });
    await page.waitForSelector(`${byTest('orch-check')}[data-valid="true"]`, { timeout: 30_000 });
    const note = await page.textContent(byTest('orch-attempts-output'));
    expect(note).toMatch(/refused response_format/);
    expect(note).toMatch(/HTTP 400/);
    const after = await page.$$eval(byTest('orch-attempt'), (els) => els.map((e) => e.textContent ?? ''));
    expect(after).toHaveLength(7);
    expect(after[0]).toContain('call failed');
    expect(after[6]).toContain('valid · used');
    expect(await page.textContent(byTest('orch-design-text'))).toContain('<agent_id>france</agent_id>');
    expect(await page.content()).not.toContain(KEY);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
