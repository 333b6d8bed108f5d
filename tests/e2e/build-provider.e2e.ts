import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Build page with intermediate execution on a provider (the real local OpenAI-wire server): an
 * own query with an expected answer, steps whose partial MAS runs remotely (later steps answered
 * partly from the call cache), EXIT, the finished design run on the provider, and the exported trace
 * checked for the per-step results and for the API key.
 */

const KEY = 'sk-test-BUILD-9f8e7d6c5b4a';
const MODEL = 'baton-build-model';

let browser: Browser;
let server: OpenAIServer;
beforeAll(async () => {
  browser = await launch();
  server = await startOpenAIServer({
    apiKey: KEY,
    models: [MODEL],
    responder: () => 'Comparing the two powers step by step gives \\boxed{1024}.',
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const byTest = (id: string): string => `[data-testid="${id}"]`;
const chats = (): number =>
  server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions')).length;

async function configure(page: Page): Promise<void> {
  await page.goto(page.url().replace(/#.*$/, '') + '#/settings');
  await page.waitForSelector(byTest('settings-page'));
  await page.selectOption(byTest('settings-provider'), 'custom');
  await page.fill(byTest('settings-base-url'), server.baseUrl);
  await page.fill(byTest('settings-model'), MODEL);
  await page.fill(byTest('settings-api-key'), KEY);
  // A price, so the default dollar limit lets the calls through.
  await page.fill(byTest('settings-price-new-model'), MODEL);
  await page.fill(byTest('settings-price-new-input'), '0.5');
  await page.fill(byTest('settings-price-new-output'), '1.5');
  await page.click(byTest('settings-price-add'));
  await page.waitForSelector(`${byTest('settings-price-row')}[data-model="${MODEL}"]`);
}

/** Waits until the newest step has its result (the partial MAS is no longer running). */
async function stepDone(page: Page, steps: number): Promise<void> {
  await page.waitForFunction(
    (n) => {
      const items = document.querySelectorAll('[data-testid="step-item"]');
      if (items.length !== n) return false;
      const last = items[items.length - 1];
      return last?.querySelector('[data-testid="step-run"]') !== null;
    },
    steps,
    { timeout: 60_000 },
  );
}

/** `N sent · M cached` of each step. */
async function runCounts(page: Page): Promise<{ sent: number; cached: number; status: string }[]> {
  return page.$$eval('[data-testid="step-item"] [data-testid="step-run"]', (els) =>
    els.map((e) => {
      const m = /(\d+) sent · (\d+) cached/.exec(e.textContent ?? '');
      return {
        sent: Number(m?.[1] ?? NaN),
        cached: Number(m?.[2] ?? NaN),
        status: e.getAttribute('data-status') ?? '',
      };
    }),
  );
}

describe('Build page: intermediate answers from a provider', () => {
  it('executes each partial MAS remotely, caches unchanged calls, runs the result, and keeps the key out', async () => {
    const { context, page, errors } = await openPage(browser, '#/');
    try {
      await configure(page);
      await page.goto(page.url().replace(/#.*$/, '') + '#/build');
      await page.waitForSelector(byTest('build-page'));
      await page.click(`label:has(${byTest('source-custom')})`);
      await page.fill(byTest('task-query'), 'Which is larger, 2^10 or 10^3? Give the larger value.');
      await page.fill(byTest('task-ground-truth'), '1024');
      await page.selectOption(byTest('build-execute'), 'provider');
      await page.click(byTest('build-start'));
      await page.locator(byTest('dist-bar')).first().waitFor();
      expect(await page.getAttribute(byTest('build-exec'), 'data-execute')).toBe('provider');

      // Step 1 with the mouse: pick the Solver bar, then Step.
      await page.click(`${byTest('dist-bar')}[data-action="Solver"]`);
      await page.click(byTest('build-step'));
      await stepDone(page, 1);
      // Step 2 from the keyboard: pick the Verifier (digit 6), sample.
      await page.keyboard.press('6');
      await page.keyboard.press('s');
      await stepDone(page, 2);

      const runs = await runCounts(page);
      expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
      expect(runs[0]?.sent).toBeGreaterThan(0);
      expect(runs[0]?.cached).toBe(0);
      // The second partial MAS re-uses the first agent's calls.
      expect(runs[1]?.cached).toBeGreaterThan(0);
      expect(runs.reduce((a, r) => a + r.sent, 0)).toBe(chats());
      const rewards = await page.locator(`${byTest('step-item')} ${byTest('step-reward')}`).allTextContents();
      expect(rewards[0]).toBe('r = +1.00');
      expect(await page.textContent(byTest('build-spend'))).toMatch(/2 partial runs/);

      await page.keyboard.press('e');
      await page.locator(byTest('build-exited')).waitFor();
      await stepDone(page, 3);
      const beforeRun = chats();

      await page.click(byTest('build-run-provider'));
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      await page.waitForSelector(byTest('trace-header'));
      expect(chats()).toBeGreaterThan(beforeRun);

      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click(byTest('download-json')),
      ]);
      const text = readFileSync(await download.path(), 'utf8');
      expect(text).not.toContain(KEY);
      const trace = JSON.parse(text) as {
        construction: { intermediateRun?: { backend: string; cachedCalls: number }; actionReward?: number }[];
        execution: { backend: { kind: string; model?: string }; status: string };
        result: { correct: boolean | null };
      };
      expect(trace.execution.backend).toMatchObject({ kind: 'remote', model: MODEL });
      expect(trace.execution.status).toBe('completed');
      expect(trace.result.correct).toBe(true);
      expect(trace.construction).toHaveLength(3);
      expect(trace.construction.every((s) => s.intermediateRun?.backend === 'remote')).toBe(true);
      expect(trace.construction[1]?.intermediateRun?.cachedCalls).toBeGreaterThan(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
