import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';
import { waitForNodes, withFixture } from './trace-open.ts';

/** Hostile markup in every rendered field stays text: nothing runs, nothing loads, links are inert. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('trace page with hostile content', () => {
  it('renders script, onerror and javascript: payloads inert and visible as text', async () => {
    await withFixture(browser, 'xss.json', async (page) => {
      await waitForNodes(page, 2);
      await page.locator('.react-flow__node[data-id="writer"] [data-testid="agent-node"]').click();
      await page.waitForSelector(
        '[data-testid="inspector"][data-agent-id="writer"] [data-testid="llm-call"]',
      );
      // Expand the messages and the thinking so every payload is in the DOM.
      await page.locator('[data-testid="llm-call"] details > summary').first().click();
      await page.getByText('Orchestrator thinking').click();
      await page.waitForTimeout(200);

      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.locator('img[onerror]').count()).toBe(0);
      expect(await page.locator('script:not([src])').count()).toBe(0);
      const hrefs = await page.$$eval('a', (as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(hrefs.filter((h) => /^\s*javascript:/i.test(h))).toEqual([]);

      const inspector = page.locator('[data-testid="inspector"]');
      const task = page.locator('[data-testid="task-panel"]');
      for (const panel of [inspector, task]) {
        const text = (await panel.textContent()) ?? '';
        expect(text).toContain('<script>window.__pwned=1</script>');
        expect(text).toContain('<img src=x onerror="window.__pwned=1">');
      }
      // The markdown link renders as inert text, not as a link.
      const inert = inspector.locator('.md-inert-link', { hasText: 'click' }).first();
      await inert.waitFor();
      expect(await inert.evaluate((el) => el.tagName)).toBe('SPAN');
      await inert.click();
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    });
  });
});
