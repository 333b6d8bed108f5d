import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';
import { readout } from './trace-open.ts';

/**
 * An imported MAS-Orchestra case-page run (design, final answer and grade; no events) and the trace
 * page's defaults: one consistent outcome, the final agent in the inspector, readable costs and
 * agent counts.
 */

const CASE_PAGE = resolve('tests/fixtures/importers/case-page.html');

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('an imported run recorded without events', () => {
  it('shows one outcome everywhere: agents done, the answer in the inspector, no "was not run"', async () => {
    const { context, page, errors } = await openPage(browser, '');
    try {
      await page.setInputFiles('[data-testid=file-input]', CASE_PAGE);
      await page.locator('[data-testid=trace-page]').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid=agent-node]').length > 1);
      const statuses = await page
        .locator('[data-testid=agent-node]')
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-status')));
      expect(statuses.length).toBeGreaterThan(1);
      expect(new Set(statuses)).toEqual(new Set(['done']));
      expect(await readout(page)).toBe('1 / 1 · outcome: completed · no events recorded');
      // The header names it as the gallery lists it: whole words, then its row and step.
      expect(await page.locator('[data-testid=trace-title]').innerText()).toMatch(
        /\w… · breadth 2 · row 0 · step 250$/,
      );
      const timeline = await page.locator('[data-testid=timeline-empty]').innerText();
      expect(timeline).toContain("MAS-Orchestra recorded the run's outcome (completed)");
      expect(timeline).not.toContain('not run');
      expect(await page.locator('[data-testid=task-panel]').innerText()).toContain('completed');

      // The inspector opens on the final agent, whose output is the final answer.
      const inspector = page.locator('[data-testid=inspector]');
      const sink = await inspector.getAttribute('data-agent-id');
      expect(sink).toBeTruthy();
      expect(
        await page.locator(`[data-testid=agent-node][data-agent-id="${sink}"]`).getAttribute('class'),
      ).toContain('sink');
      const answer = (await page.locator('[data-testid=final-answer]').innerText()).trim();
      expect(await inspector.innerText()).toContain(answer);
      expect(await inspector.innerText()).toContain('recorded only the outcome');

      // Stepping back to the start shows the design before the run.
      await page.keyboard.press('Home');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[data-testid=agent-node]')].every(
          (n) => n.getAttribute('data-status') === 'pending',
        ),
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('trace page defaults', () => {
  it('shows costs in plain decimals, the final agent selected and what the agent count includes', async () => {
    const { context, page, errors } = await openPage(browser, '#/trace/example-mashost-construction');
    try {
      // At 1400 px the fourth agent lies beyond the readable-zoom view (the canvas scrolls): wait for the page.
      await page.locator('[data-testid=inspector]').waitFor();
      expect(await page.locator('[data-testid=inspector]').getAttribute('data-agent-id')).toBe('summarizer');
      expect(await page.locator('[data-testid=trace-agent-count]').innerText()).toBe(
        '4 agents (incl. summariser)',
      );
      const text = await page.locator('[data-testid=trace-page]').innerText();
      const costs = text.match(/<?\$[\d.,e+-]+/g) ?? [];
      expect(costs.length).toBeGreaterThan(3);
      for (const c of costs) expect(c).toMatch(/^<?\$\d[\d,]*(\.\d+)?$/);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
