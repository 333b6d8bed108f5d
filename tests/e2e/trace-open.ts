import { resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { openPage } from './browser.ts';

/** Shared steps for the Trace page e2e tests: open a fixture trace through the app's file input. */

export const FIXTURES = resolve('tests/fixtures/traces');

export interface TracePageSession {
  page: Page;
  context: BrowserContext;
  errors: string[];
}

/** Opens the app, imports `tests/fixtures/traces/<file>` and waits for the Trace page. */
export async function openFixture(browser: Browser, file: string): Promise<TracePageSession> {
  const { page, context, errors } = await openPage(browser, '');
  await page.locator('[data-testid="file-input"]').setInputFiles(resolve(FIXTURES, file));
  await page.locator('[data-testid="trace-page"]').waitFor();
  await page.locator('[data-testid="replay-position"]').waitFor();
  return { page, context, errors };
}

/** Runs `body` on a fixture's Trace page and fails on any uncaught page error. */
export async function withFixture(
  browser: Browser,
  file: string,
  body: (page: Page) => Promise<void>,
): Promise<void> {
  const s = await openFixture(browser, file);
  try {
    await body(s.page);
    expect(s.errors).toEqual([]);
  } finally {
    await s.context.close();
  }
}

export const nodeCount = (page: Page): Promise<number> => page.locator('[data-testid="agent-node"]').count();

export const readout = async (page: Page): Promise<string> =>
  ((await page.locator('[data-testid="replay-position"]').textContent()) ?? '').trim();

/** Waits until the replay readout starts with `prefix`, e.g. "0 / 18". */
export async function waitForReadout(page: Page, prefix: string): Promise<void> {
  await page.waitForFunction(
    (p) =>
      (document.querySelector('[data-testid="replay-position"]')?.textContent ?? '').trim().startsWith(p),
    prefix,
  );
}

export async function waitForNodes(page: Page, n: number): Promise<void> {
  await page.waitForFunction(
    (expected) => document.querySelectorAll('[data-testid="agent-node"]').length === expected,
    n,
  );
}
