/**
 * Constrained decoding in Chromium: the engine bundled by Vite (which wraps web-xgrammar's UMD
 * file as CommonJS, unlike Node) loads XGrammar's inlined wasm offline, reads masks synchronously
 * from its memory, and every design it lets through parses and validates.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';
import { serveStatic } from './static-server.ts';

let out = '';
let url = '';
let server: Server | null = null;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'baton-constrain-page-'));
  await build({
    root: join(import.meta.dirname, '../fixtures/constrain-page'),
    configFile: false,
    logLevel: 'silent',
    build: { outDir: out, emptyOutDir: true, target: 'es2022' },
  });
  ({ url, server } = await serveStatic(out));
});

afterAll(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  if (out) rmSync(out, { recursive: true, force: true });
});

describe('constrained decoding in the browser', () => {
  it('loads XGrammar, masks synchronously, and ends every run in a valid design', async () => {
    const browser = await launch();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(url);
      await page.waitForFunction(() => 'constrainResult' in window, null, { timeout: 60_000 });
      const result = (await page.evaluate(
        () => (window as unknown as { constrainResult: unknown }).constrainResult,
      )) as {
        ok: boolean;
        error?: string;
        memory?: boolean;
        runs?: { format: string; dom: string; problems: number; violations: number; steps: number }[];
      };
      expect(result.error).toBeUndefined();
      expect(result.ok).toBe(true);
      expect(result.memory).toBe(true);
      expect(result.runs).toHaveLength(4);
      for (const r of result.runs ?? []) {
        expect(r).toMatchObject({ problems: 0, violations: 0 });
        expect(r.steps).toBeGreaterThan(10);
      }
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
