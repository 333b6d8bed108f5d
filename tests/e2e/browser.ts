import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { inject } from 'vitest';

export { CANVAS_WEBGPU_ARGS, CHROMIUM_ARGS } from '../support/chromium.ts';

export function launch(extraArgs: string[] = []): Promise<Browser> {
  return launchChromium(extraArgs);
}

export function baseUrl(): string {
  return inject('baseUrl');
}

/**
 * A page that fails the test on any uncaught page error and collects console lines, so tests can
 * assert that nothing went wrong silently.
 */
export async function openPage(
  browser: Browser,
  path = '',
): Promise<{ context: BrowserContext; page: Page; errors: string[]; console: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const consoleLines: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  await page.goto(baseUrl() + path);
  return { context, page, errors, console: consoleLines };
}
