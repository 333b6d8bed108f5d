import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';
import { ISOLATION_HEADERS, serveStatic } from './static-server.ts';

/**
 * The Train page with the compute choice left at `auto` in Chromium, whose only adapter is
 * SwiftShader (a software adapter): the worker trains on the WebAssembly SIMD backend, loads its
 * kernels on demand, and the page shows the backend and why.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('Train page on the WebAssembly SIMD backend', () => {
  it('auto trains on wasm where WebGPU is a software adapter, and says why', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    const wasmChunks: string[] = [];
    page.on('request', (r) => {
      if (/kernels-bytes-.*\.js$/.test(r.url())) wasmChunks.push(r.url());
    });
    try {
      await page.locator('[data-testid=train-page]').waitFor();
      expect(wasmChunks).toEqual([]);
      await page.click('[data-testid=train-preset-robustness]');
      await page.click('.train-config summary');
      for (const [field, value] of [
        ['tasksPerIteration', '2'],
        ['groupSize', '2'],
        ['epochs', '1'],
        ['minibatch', '32'],
      ] as const)
        await page.fill(`[data-testid=train-field-${field}]`, value);
      await page.selectOption('[data-testid=train-compute]', 'auto');
      await page.click('[data-testid=train-start]');
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
        undefined,
        { timeout: 120_000 },
      );
      expect(await page.locator('[data-testid=train-backend]').innerText()).toMatch(
        process.env.BATON_E2E_ISOLATED === '1'
          ? /^wasm: .*WebAssembly SIMD backend, 2 threads for large matmuls; simulated sub-agents on \d+ threads?$/
          : /^wasm: .*WebAssembly SIMD backend, one thread \(the page is not cross-origin isolated .*\); simulated sub-agents on \d+ threads?$/,
      );
      expect(wasmChunks.length).toBeGreaterThan(0);
      await page.click('[data-testid=train-pause]');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('with COOP/COEP (as vite and vite preview send them) the page is cross-origin isolated and the Train page says the wasm backend uses 2 threads for large matmuls', async () => {
    const { url, server } = await serveStatic('dist', 0, ISOLATION_HEADERS);
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(url + '#/train');
      await page.locator('[data-testid=train-page]').waitFor();
      expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
      await page.click('[data-testid=train-preset-robustness]');
      await page.click('.train-config summary');
      for (const [field, value] of [
        ['tasksPerIteration', '2'],
        ['groupSize', '2'],
        ['epochs', '1'],
        ['minibatch', '32'],
      ] as const)
        await page.fill(`[data-testid=train-field-${field}]`, value);
      await page.selectOption('[data-testid=train-compute]', 'auto');
      await page.click('[data-testid=train-start]');
      await page.waitForFunction(
        () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
        undefined,
        { timeout: 120_000 },
      );
      expect(await page.locator('[data-testid=train-backend]').innerText()).toMatch(
        /^wasm: .*, 2 threads for large matmuls; simulated sub-agents on \d+ threads?$/,
      );
      await page.click('[data-testid=train-pause]');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await new Promise((ok) => server.close(ok));
    }
  });
});
