import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { inject } from 'vitest';

/** Flags from ENVIRONMENT.md: WebGPU on SwiftShader, and no background network (the network is closed). */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Extra flags needed to present WebGPU frames on a canvas with SwiftShader. */
export const CANVAS_WEBGPU_ARGS = [
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
];

export async function launch(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...extraArgs],
    headless: true,
  });
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
