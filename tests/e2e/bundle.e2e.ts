import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addedFiles, initialFiles, ROUTES, type Manifest } from '../../scripts/check-size.mjs';
import { baseUrl, launch } from './browser.ts';

/**
 * Code splitting as the browser sees it: the gallery downloads only its own code, the trace page
 * brings React Flow, markdown and KaTeX when opened, a page shows a loading state while its code
 * arrives, and a page whose code cannot be downloaded says so and offers a reload.
 */

const manifest = JSON.parse(readFileSync('dist/.vite/manifest.json', 'utf8')) as Manifest;
const initial = initialFiles(manifest, readFileSync('dist/index.html', 'utf8'));
const examples = JSON.parse(readFileSync('dist/examples/index.json', 'utf8')) as {
  examples: { file: string }[];
};

/** The file of a lazily loaded module, from the manifest. */
function chunkOf(key: string): string {
  const file = manifest[key]?.file;
  if (!file) throw new Error(`the build manifest has no chunk for ${key}`);
  return file;
}

/** Every file the routes add to the initial load (a route that is not lazy adds none: see HEAVY). */
const routeFiles = [
  ...new Set(
    ROUTES.flatMap((r) =>
      r.modules.filter((k) => manifest[k]).flatMap((k) => addedFiles(manifest, k, initial)),
    ),
  ),
];

/**
 * Strings found only in a heavy library's code, whichever chunk the bundler puts it in: a KaTeX
 * error message, the markdown parser's name in its messages, a React Flow class name.
 */
const HEAVY = [
  { library: 'KaTeX', marker: 'KaTeX parse error' },
  { library: 'markdown (micromark)', marker: 'micromark' },
  { library: 'React Flow', marker: 'react-flow__pane' },
];

interface Loaded {
  /** Paths under the site root, e.g. `assets/index-abc.js`. */
  path: string;
  type: string;
  body: string;
}

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

/**
 * A page that records every script, stylesheet and font it downloads (with the text of scripts and
 * stylesheets), and fails the test on an uncaught page error.
 */
async function recordingPage(
  body: (page: Page, loaded: Loaded[], context: BrowserContext) => Promise<void>,
): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  const loaded: Loaded[] = [];
  const pending: Promise<void>[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (response) => {
    const type = response.request().resourceType();
    if (!['script', 'stylesheet', 'font'].includes(type)) return;
    const path = new URL(response.url()).pathname.replace(/^\//, '');
    pending.push(
      (type === 'font' ? Promise.resolve('') : response.text()).then(
        (text) => void loaded.push({ path, type, body: text }),
        () => void loaded.push({ path, type, body: '' }),
      ),
    );
  });
  try {
    await body(page, loaded, context);
    await Promise.all(pending);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

/** Waits until the page has made no request for 500 ms, so late lazy loads are counted too. */
const settle = (page: Page): Promise<void> => page.waitForLoadState('networkidle');

const heavyIn = (loaded: Loaded[]): string[] =>
  HEAVY.filter(({ marker }) => loaded.some((l) => l.type === 'script' && l.body.includes(marker))).map(
    (h) => h.library,
  );

describe('the gallery', () => {
  it('downloads none of the markdown, KaTeX or React Flow code, nor any route chunk', async () => {
    await recordingPage(async (page, loaded) => {
      await page.goto(baseUrl());
      await page.locator('[data-testid=gallery-card]').first().waitFor();
      await settle(page);
      const scripts = loaded.filter((l) => l.type === 'script').map((l) => l.path);
      // What the size check counts is what the browser fetched (the recording works)…
      expect(scripts).toEqual(expect.arrayContaining(initial));
      // …and nothing a route page, markdown, KaTeX or React Flow needs.
      expect(scripts.filter((p) => routeFiles.includes(p))).toEqual([]);
      expect(heavyIn(loaded)).toEqual([]);
      expect(
        loaded.filter((l) => l.type === 'font' || /KaTeX_|\.katex\b/.test(l.body)).map((l) => l.path),
      ).toEqual([]);
    });
  });

  it('then opening a trace downloads its route with React Flow, markdown, KaTeX and its stylesheet', async () => {
    const first = examples.examples[0];
    if (!first) throw new Error('the build has no bundled examples');
    await recordingPage(async (page, loaded) => {
      await page.goto(baseUrl());
      await page.locator('[data-testid=gallery-card]').first().waitFor();
      await settle(page);
      expect(heavyIn(loaded)).toEqual([]);
      await page
        .locator(`[data-testid=gallery-card][data-file="${first.file}"] [data-testid=gallery-card-open]`)
        .click();
      await page.locator('.react-flow__node').first().waitFor();
      await settle(page);
      const paths = loaded.map((l) => l.path);
      expect(paths).toContain(chunkOf('src/ui/app/TraceRoute.tsx'));
      expect(paths).toContain(chunkOf('src/ui/markdown/MarkdownRenderer.tsx'));
      // The markers above do name code the app loads: a marker that matched nothing would pass the
      // gallery test for the wrong reason.
      expect(heavyIn(loaded)).toEqual(HEAVY.map((h) => h.library));
      expect(loaded.some((l) => l.type === 'stylesheet' && l.body.includes('.katex'))).toBe(true);
      // The task panel's text is rendered markdown, not the plain-text stand-in.
      expect(await page.locator('[data-testid=task-panel] .md').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid=task-panel] .md-plain').count()).toBe(0);
    });
  });
});

describe('lazy pages', () => {
  it('show a loading state while their code downloads', async () => {
    const settings = chunkOf('src/ui/settings/SettingsPage.tsx');
    let release = (): void => undefined;
    const held = new Promise<void>((ok) => (release = ok));
    await recordingPage(async (page) => {
      await page.route(`**/${settings}`, async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`${baseUrl()}#/settings`);
      const loading = page.locator('[data-testid=page-loading]');
      await loading.waitFor();
      expect(await loading.locator('[role=status]').innerText()).toContain('Loading the Settings page');
      release();
      await page.locator('[data-testid=settings-provider]').first().waitFor();
      expect(await loading.count()).toBe(0);
    });
  });

  for (const [what, key] of [
    ['the route chunk', 'src/ui/app/TraceRoute.tsx'],
    ['the markdown renderer', 'src/ui/markdown/MarkdownRenderer.tsx'],
  ] as const) {
    it(`say so and offer a reload when ${what} cannot be downloaded (a redeploy removed it)`, async () => {
      const first = examples.examples[0];
      if (!first) throw new Error('the build has no bundled examples');
      const trace = JSON.parse(readFileSync(`dist/examples/${first.file}`, 'utf8')) as { id: string };
      const missing = chunkOf(key);
      await recordingPage(async (page) => {
        await page.route(`**/${missing}`, (route) => route.fulfill({ status: 404, body: 'Not Found' }));
        await page.goto(`${baseUrl()}#/trace/${trace.id}`);
        const alert = page.locator('[data-testid=chunk-error]');
        await alert.waitFor();
        expect(await alert.getAttribute('role')).toBe('alert');
        expect(await alert.innerText()).toContain('could not be loaded');
        // The shell is still there, and once the file is back a reload opens the trace.
        expect(await page.locator('nav').count()).toBeGreaterThan(0);
        await page.unroute(`**/${missing}`);
        await alert.getByRole('button', { name: 'Reload' }).click();
        await page.locator('[data-testid=trace-title]').waitFor();
        expect(await page.locator('[data-testid=chunk-error]').count()).toBe(0);
      });
    });
  }
});
