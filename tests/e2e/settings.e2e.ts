import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * Settings (issue 19, item 15): a local preset (Ollama) has no dollar limit by default, a token
 * limit instead, so its unpriced model is not refused; "Forget key" looks disabled with no key saved.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(() => browser.close());

const BAD = 'rgb(180, 35, 24)';
const borderOf = (page: Page): Promise<string> =>
  page.getByTestId('settings-forget-key').evaluate((el) => getComputedStyle(el).borderTopColor);

describe('Settings page', () => {
  it('gives the Ollama preset a token limit and no dollar limit, and disables Forget key without a key', async () => {
    const { page, errors, context } = await openPage(browser, '#/settings');
    try {
      await page.getByTestId('settings-page').waitFor();
      // No key saved: Forget key is disabled and does not look armed (not the danger red).
      const forget = page.getByTestId('settings-forget-key');
      expect(await forget.isDisabled()).toBe(true);
      expect(await borderOf(page)).not.toBe(BAD);
      expect(await forget.getAttribute('title')).toBe('No key is saved for this provider');

      expect(await page.getByTestId('settings-budget-usd').inputValue()).toBe('1');
      await page.selectOption('[data-testid=settings-provider]', 'ollama');
      expect(await page.getByTestId('settings-budget-usd').inputValue()).toBe('');
      expect(await page.getByTestId('settings-budget-tokens').inputValue()).toBe('200000');
      expect(await page.getByTestId('settings-budget-kind').innerText()).toMatch(
        /no dollar limit by default/,
      );
      for (const id of ['lmstudio', 'llamacpp'])
        expect(await page.locator(`[data-testid=settings-provider] option[value=${id}]`).count()).toBe(1);

      // A hosted provider keeps its own budget, dollar limit included.
      await page.selectOption('[data-testid=settings-provider]', 'openai');
      expect(await page.getByTestId('settings-budget-usd').inputValue()).toBe('1');

      // With a key saved, Forget key is armed.
      await page.getByTestId('settings-api-key').fill('sk-test-not-a-real-key');
      expect(await forget.isEnabled()).toBe(true);
      expect(await borderOf(page)).toBe(BAD);
      await forget.click();
      expect(await forget.isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
