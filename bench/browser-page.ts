/**
 * A benchmark page in Chromium: builds the page's Vite config, serves the build with `vite preview`,
 * opens it in Debian's Chromium (tests/support/chromium.ts), waits until the page has set
 * `window[ready]`, and hands the page to `run`. The browser and the server are closed afterwards,
 * whether `run` succeeded or not. Shared by the benchmarks that time the compute core in a tab.
 */
import type { Page } from 'playwright-core';
import { build, preview } from 'vite';
import { launchChromium } from '../tests/support/chromium.ts';

export interface BenchPageOptions {
  /** Playwright's default timeout for the page (0: none). */
  timeoutMs: number;
  /** Forward the page's console (and its uncaught errors) to this process's output. */
  log?: boolean;
}

export async function onBenchPage<T>(
  configFile: string,
  ready: string,
  opts: BenchPageOptions,
  run: (page: Page) => Promise<T>,
): Promise<T> {
  await build({ configFile });
  const server = await preview({ configFile });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('preview server has no URL');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    if (opts.log) {
      page.on('console', (m) => console.log(`chromium: ${m.text()}`));
      page.on('pageerror', (e) => console.error(`chromium page error: ${String(e)}`));
    }
    page.setDefaultTimeout(opts.timeoutMs);
    await page.goto(url);
    await page.waitForFunction(
      (name) => typeof (window as unknown as Record<string, unknown>)[name] === 'function',
      ready,
    );
    return await run(page);
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
  }
}
