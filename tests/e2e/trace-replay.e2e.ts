import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';
import { nodeCount, readout, waitForNodes, waitForReadout, withFixture } from './trace-open.ts';

/** Replay from the keyboard: construction steps, then execution events. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const status = (page: Page, id: string): Promise<string | null> =>
  page.locator(`.react-flow__node[data-id="${id}"] [data-testid="agent-node"]`).getAttribute('data-status');

describe('trace replay', () => {
  it('steps through construction and execution with the keyboard', async () => {
    await withFixture(browser, 'construction.json', async (page) => {
      await waitForNodes(page, 3);
      expect(await readout(page)).toBe('18 / 18 · run.end completed');

      await page.keyboard.press('Home');
      await waitForReadout(page, '0 / 18 · start');
      expect(await nodeCount(page)).toBe(0);
      await page.locator('[data-testid="graph-empty"]').waitFor();

      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '2 / 18 · add Critic → a2');
      await waitForNodes(page, 2);
      expect(
        await page.locator('[data-testid="role-distribution"] .role-row.chosen').textContent(),
      ).toContain('Critic');
      expect(await page.locator('.react-flow__edge-text').first().textContent()).toContain('p=0.83');

      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '3 / 18 · delete a2');
      await waitForNodes(page, 1);

      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '5 / 18 · exit → sum');
      await waitForNodes(page, 3);

      // The first execution event starts a1.
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '6 / 18 · agent.start a1');
      expect(await status(page, 'a1')).toBe('running');
      expect(await status(page, 'sum')).toBe('pending');

      await page.keyboard.press('ArrowLeft');
      await waitForReadout(page, '5 / 18');
      await page.keyboard.press('End');
      await waitForReadout(page, '18 / 18');
      expect(await status(page, 'sum')).toBe('done');
    });
  });

  it('plays and pauses with Space and shows the state in the inspector', async () => {
    await withFixture(browser, 'debate.json', async (page) => {
      await waitForNodes(page, 5);
      await page.locator('.react-flow__node[data-id="judge"] [data-testid="agent-node"]').click();
      await page.waitForSelector('[data-testid="inspector"][data-agent-id="judge"] [data-testid="llm-call"]');

      await page.keyboard.press('Home');
      await waitForReadout(page, '0 / 22');
      expect(await page.locator('[data-testid="inspector"] [data-testid="llm-call"]').count()).toBe(0);

      await page.locator('[data-testid="replay"] select').selectOption('16');
      await page.locator('[data-testid="trace-page"]').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('Space');
      await page.waitForFunction(() => {
        const t = document.querySelector('[data-testid="replay-position"]')?.textContent ?? '';
        return Number(t.split('/')[0]) >= 3;
      });
      await page.keyboard.press('Space');
      const paused = await readout(page);
      await page.waitForTimeout(400);
      expect(await readout(page)).toBe(paused);
      expect(await page.locator('[data-testid="replay-play"]').getAttribute('aria-pressed')).toBe('false');
    });
  });
});
