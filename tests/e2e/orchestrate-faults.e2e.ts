import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_DESIGNS, GOOD_DESIGN, designScriptResponder } from '../server/design-script.ts';
import { defaultResponder, startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Orchestrate page with the Settings provider as the orchestrator under 20% injected faults, in
 * Chromium: the local OpenAI-wire server answers a broken design and then a good one (one repair
 * turn), and one request in five (seeded) gets a fault: a hang (the call timeout ends it), a 429, a
 * 500, a 503, or a stream cut after three chunks. Twenty orchestrations in a row, each must end —
 * a valid design, or a clean failure whose reason the page shows and the attempt records — within a
 * bound far below a hang; none may change the query, the task settings or the Settings, and none
 * may spend more tokens than the run budget allows, by the page's count or the server's bill.
 */
const KEY = `sk-test-FAULTS-${Math.random().toString(36).slice(2)}`;
const MODEL = 'gpt-4.1-mini';
const QUERY = 'Compare the GDP growth of France and Germany in 2023';
const TOKEN_LIMIT = 6000;
const RUNS = 20;

let browser: Browser;
let server: OpenAIServer;
let billed = 0;
beforeAll(async () => {
  browser = await launch();
  server = await startOpenAIServer({
    apiKey: KEY,
    models: [MODEL],
    responder: designScriptResponder(defaultResponder, [BROKEN_DESIGNS[3]!.xml, GOOD_DESIGN]),
    onBilled: (u) => {
      billed += u.prompt_tokens + u.completion_tokens;
    },
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const byTest = (id: string): string => `[data-testid="${id}"]`;

interface Form {
  query: string;
  dom: string;
  temperature: string;
  seed: string;
  repairTurns: string | null;
}
const form = async (page: Page): Promise<Form> => ({
  query: await page.inputValue(byTest('orch-query')),
  dom: await page.inputValue(byTest('orch-dom')),
  temperature: await page.inputValue(byTest('orch-temperature')),
  seed: await page.inputValue(byTest('orch-seed')),
  repairTurns: await page.textContent(byTest('orch-repair-turns')),
});

describe('Orchestrate with the Settings provider under 20% injected faults', () => {
  it('20 orchestrations each finish or fail cleanly with the reason shown; none hangs, loses the query or settings, or goes over budget', async () => {
    const { page, errors, context } = await openPage(browser, '#/settings');
    await page.waitForSelector(byTest('settings-page'));
    await page.selectOption(byTest('settings-provider'), 'custom');
    await page.fill(byTest('settings-base-url'), server.baseUrl);
    await page.fill(byTest('settings-model'), MODEL);
    await page.fill(byTest('settings-api-key'), KEY);
    await page.fill(byTest('settings-repair-turns'), '1');
    await page.fill(byTest('settings-design-timeout'), '2');
    await page.fill(byTest('settings-budget-tokens'), String(TOKEN_LIMIT));
    await page.goto(page.url().replace(/#.*$/, '') + '#/orchestrate');
    await page.waitForSelector(byTest('orchestrate-page'));
    await page.click(byTest('orch-orchestrator-provider'));
    await page.fill(byTest('orch-query'), QUERY);
    await page.selectOption(byTest('orch-dom'), 'high');
    const before = await form(page);
    expect(before).toMatchObject({ query: QUERY, dom: 'high', repairTurns: '1' });

    server.reset();
    server.setFaults({
      rate: 0.2,
      seed: 40,
      rateFaults: [
        { hang: true },
        { status: 429, retryAfter: '0' },
        { status: 500 },
        { status: 503 },
        { disconnectAfterChunks: 3 },
      ],
    });
    const outcomes: string[] = [];
    let started = '';
    for (let i = 0; i < RUNS; i++) {
      const billedBefore = billed;
      await page.click(byTest('orch-start'));
      // Ends well within the bound: two calls, each at most a 2 s timeout plus the client's retries.
      await page.waitForFunction(
        (prev) => {
          const out = document.querySelector('[data-testid="orch-output"]');
          const status = document
            .querySelector('[data-testid="orch-gen-status"]')
            ?.getAttribute('data-status');
          return (
            out !== null &&
            out.getAttribute('data-started') !== prev &&
            status !== null &&
            status !== 'running'
          );
        },
        started,
        { timeout: 20_000 },
      );
      started = (await page.getAttribute(byTest('orch-output'), 'data-started')) ?? '';
      const status = await page.getAttribute(byTest('orch-gen-status'), 'data-status');
      const attempts = await page.$$eval(byTest('orch-attempt'), (els) =>
        els.map((e) => ({ valid: e.getAttribute('data-valid'), text: e.textContent ?? '' })),
      );
      const tokens = Number(await page.getAttribute(byTest('orch-attempts'), 'data-tokens'));
      if (status === 'done') {
        expect(await page.getAttribute(byTest('orch-check'), 'data-valid'), `run ${i}`).toBe('true');
        expect(attempts.at(-1)?.text, `run ${i}`).toContain('valid · used');
        outcomes.push('designed');
      } else {
        expect(status, `run ${i}`).toBe('error');
        const reason = (await page.textContent(byTest('orch-gen-error'))) ?? '';
        expect(reason, `run ${i}`).toMatch(
          /attempt \d+ (failed: (timeout|http|network|invalid-response)|was not sent: budget): /,
        );
        // A failed call is an attempt with its error; a call the budget refused was never sent.
        if (!/was not sent/.test(reason)) expect(attempts.at(-1)?.text, `run ${i}`).toContain('call failed');
        outcomes.push(/failed: (\w[\w-]*)/.exec(reason)?.[1] ?? 'budget');
      }
      // Within the run budget by the page's count and by the server's bill.
      expect(tokens, `run ${i}`).toBeLessThanOrEqual(TOKEN_LIMIT);
      expect(billed - billedBefore, `run ${i}`).toBeLessThanOrEqual(TOKEN_LIMIT);
      // The query and the settings are as they were.
      expect(await form(page), `run ${i}`).toEqual(before);
    }

    expect(outcomes).toHaveLength(RUNS);
    expect(outcomes.filter((o) => o === 'designed').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => o !== 'designed').length).toBeGreaterThan(0);
    // Every kind of fault was injected.
    const faults = server.requests
      .filter((r) => r.path === '/v1/chat/completions')
      .map((r) => JSON.stringify(r.fault ?? null));
    for (const f of [
      '{"hang":true}',
      '{"status":429,"retryAfter":"0"}',
      '{"status":500}',
      '{"status":503}',
      '{"disconnectAfterChunks":3}',
    ])
      expect(faults).toContain(f);
    // The Settings survived the twenty runs, and the key stayed off the page.
    await page.goto(page.url().replace(/#.*$/, '') + '#/settings');
    await page.waitForSelector(byTest('settings-page'));
    expect(await page.inputValue(byTest('settings-base-url'))).toBe(server.baseUrl);
    expect(await page.inputValue(byTest('settings-model'))).toBe(MODEL);
    expect(await page.inputValue(byTest('settings-repair-turns'))).toBe('1');
    expect(await page.inputValue(byTest('settings-design-timeout'))).toBe('2');
    expect(await page.inputValue(byTest('settings-budget-tokens'))).toBe(String(TOKEN_LIMIT));
    expect(await page.content()).not.toContain(KEY);
    expect(errors).toEqual([]);
    console.log(`outcomes of the ${RUNS} orchestrations: ${outcomes.join(', ')}`);
    await context.close();
  }, 60_000);
});
