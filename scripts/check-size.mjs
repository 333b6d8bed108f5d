/**
 * `node scripts/check-size.mjs` (run by `npm test` right after `vite build`, and by `npm run size`):
 * the JavaScript budget of the first page.
 *
 * Reads Vite's build manifest (dist/.vite/manifest.json, written because vite.config.ts sets
 * `build.manifest`) and measures what the gallery (`#/`, the first page every visit sees) loads
 * before it can draw: the entry chunk and its static imports, recursively, plus any script
 * dist/index.html itself names. Lazy chunks (`import()`, React.lazy pages, markdown + KaTeX, the
 * graph views) are not part of it; their sizes are printed so a route that grows is seen too.
 *
 * Sizes are gzip at zlib's default level (6), what most static hosts serve, in kB of 1,000 bytes as
 * Vite prints them (Vite's own build report compresses a little differently and prints about 1 %
 * more). Exits 1 above the budget, naming the files to look at.
 *
 * Options: --dist <dir> (default dist), --budget <kB> (default 250).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** The gallery's initial JavaScript may weigh this much, gzip, in kB (1,000 bytes). */
export const BUDGET_KB = 250;

/**
 * Route pages loaded with React.lazy in src/ui/App.tsx, by the manifest keys of the modules each
 * downloads when opened (the trace route fetches the markdown renderer alongside its own chunk).
 */
export const ROUTES = [
  { route: '#/trace', modules: ['src/ui/app/TraceRoute.tsx', 'src/ui/markdown/MarkdownRenderer.tsx'] },
  { route: '#/build', modules: ['src/ui/construction/BuildPage.tsx'] },
  { route: '#/run', modules: ['src/ui/run/RunPage.tsx'] },
  { route: '#/settings', modules: ['src/ui/settings/SettingsPage.tsx'] },
];

/** The manifest key of the HTML entry (`index.html` in this app). */
export function entryKey(manifest) {
  const entries = Object.entries(manifest).filter(([, chunk]) => chunk.isEntry && chunk.file.endsWith('.js'));
  const html = entries.find(([, chunk]) => chunk.src === 'index.html');
  const found = html ?? (entries.length === 1 ? entries[0] : undefined);
  if (!found) {
    const names = entries.map(([key]) => key).join(', ') || 'none';
    throw new Error(`the manifest has no single JavaScript entry for index.html (entries: ${names})`);
  }
  return found[0];
}

/**
 * Manifest keys of `key` and of everything it imports statically, recursively, in load order
 * (the chunk first). `dynamicImports` are not followed: they load later, on demand.
 */
export function staticClosure(manifest, key) {
  const seen = new Set();
  const visit = (k) => {
    if (seen.has(k)) return;
    const chunk = manifest[k];
    if (!chunk) throw new Error(`the manifest names "${k}" as an import but has no entry for it`);
    seen.add(k);
    for (const next of chunk.imports ?? []) visit(next);
  };
  visit(key);
  return [...seen];
}

/** Every chunk reachable through `dynamicImports` (at any depth), in the order first met. */
export function lazyChunks(manifest, from) {
  const found = [];
  const seen = new Set();
  const queue = [from];
  while (queue.length > 0) {
    const k = queue.shift();
    if (seen.has(k)) continue;
    seen.add(k);
    const chunk = manifest[k];
    if (!chunk) continue;
    for (const next of chunk.imports ?? []) queue.push(next);
    for (const next of chunk.dynamicImports ?? []) {
      if (!found.includes(next) && next !== from) found.push(next);
      queue.push(next);
    }
  }
  return found;
}

/** The JavaScript files dist/index.html loads or preloads: module scripts and modulepreload links. */
export function htmlScripts(html) {
  const files = [];
  for (const tag of html.match(/<(script|link)\b[^>]*>/gi) ?? []) {
    const isScript = /^<script/i.test(tag) && /\btype=["']?module/i.test(tag);
    const isPreload = /^<link/i.test(tag) && /\brel=["']?modulepreload/i.test(tag);
    const url = /\b(?:src|href)=["']([^"']+)["']/i.exec(tag)?.[1];
    if ((isScript || isPreload) && url && !/^(?:[a-z]+:)?\/\//i.test(url)) {
      files.push(url.replace(/^\.?\//, ''));
    }
  }
  return files;
}

/** The JavaScript files the first page loads before it draws: the entry's static closure + index.html's scripts. */
export function initialFiles(manifest, html = '') {
  const files = staticClosure(manifest, entryKey(manifest)).map((k) => manifest[k].file);
  for (const file of htmlScripts(html)) if (file.endsWith('.js') && !files.includes(file)) files.push(file);
  return files;
}

/**
 * What loading the lazy chunk `key` adds to a page that already has `loaded`: its static closure
 * minus the files already there (shared vendor chunks count once, with the first page that needs them).
 */
export function addedFiles(manifest, key, loaded) {
  return staticClosure(manifest, key)
    .map((k) => manifest[k].file)
    .filter((file) => !loaded.includes(file));
}

/**
 * The whole report, from the manifest, index.html and a `sizeOf(file) -> gzip bytes` function:
 * the initial files and their total, what each route and each other lazy chunk adds to them, the
 * routes that are not lazy, and whether the budget holds.
 */
export function report(manifest, html, sizeOf, budgetKb = BUDGET_KB, routes = ROUTES) {
  const initial = initialFiles(manifest, html);
  const initialBytes = sum(initial.map(sizeOf));
  const lazy = lazyChunks(manifest, entryKey(manifest));
  const lazyRoutes = routes.filter((r) => lazy.includes(r.modules[0]));
  const notLazy = routes.filter((r) => !lazy.includes(r.modules[0])).map((r) => r.route);
  const routeRows = lazyRoutes.map((r) => {
    const files = [];
    for (const key of r.modules.filter((k) => manifest[k])) {
      for (const file of addedFiles(manifest, key, initial)) if (!files.includes(file)) files.push(file);
    }
    return { label: r.route, files, bytes: sum(files.map(sizeOf)) };
  });
  // A shared chunk that only ever loads as part of a route (an `import()` of a module the route
  // also bundles) is already in that route's row.
  const inRoutes = new Set(routeRows.flatMap((row) => row.files));
  const otherRows = lazy
    .map((key) => {
      const files = addedFiles(manifest, key, initial);
      return { label: manifest[key]?.src ?? key, files, bytes: sum(files.map(sizeOf)) };
    })
    .filter((row) => !row.files.every((file) => inRoutes.has(file)));
  const budgetBytes = budgetKb * 1000;
  return {
    initial,
    initialBytes,
    budgetBytes,
    ok: initialBytes <= budgetBytes,
    routes: routeRows,
    others: otherRows,
    notLazy,
  };
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);
const kb = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;

/** The report as the lines the command prints. */
export function formatReport(r) {
  const lines = [];
  lines.push(`Gallery (#/) initial JavaScript: ${kb(r.initialBytes)} gzip (budget ${kb(r.budgetBytes)})`);
  for (const file of r.initial) lines.push(`  ${file}`);
  const table = (title, rows) => {
    if (rows.length === 0) return;
    lines.push('', title);
    const width = Math.max(...rows.map((row) => row.label.length));
    for (const row of rows)
      lines.push(`  ${row.label.padEnd(width)} ${kb(row.bytes).padStart(10)}  ${row.files.join(', ')}`);
  };
  table('Routes, loaded when opened (gzip each adds to the initial load):', r.routes);
  table('Other lazy chunks (gzip each adds to the initial load):', r.others);
  if (r.notLazy.length > 0)
    lines.push('', `Not loaded lazily (part of the initial load, or renamed): ${r.notLazy.join(', ')}`);
  lines.push('');
  lines.push(
    r.ok
      ? `OK: ${kb(r.initialBytes)} ≤ ${kb(r.budgetBytes)}.`
      : `FAIL: the gallery loads ${kb(r.initialBytes)} of JavaScript (gzip) before it draws, over the ` +
          `${kb(r.budgetBytes)} budget by ${kb(r.initialBytes - r.budgetBytes)}. Something heavy joined ` +
          'the initial load: load it with import() / React.lazy where it is used (docs/architecture.md, "Loading").',
  );
  return lines;
}

function main(argv) {
  const option = (name, fallback) => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : fallback;
  };
  const dist = option('--dist', 'dist');
  const budget = Number(option('--budget', String(BUDGET_KB)));
  if (!Number.isFinite(budget) || budget <= 0) throw new Error('--budget takes a positive number of kB');
  const manifestPath = join(dist, '.vite/manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(
      `${manifestPath} is missing: run \`vite build\` first (vite.config.ts sets build.manifest, which writes it).`,
    );
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const htmlPath = join(dist, 'index.html');
  const html = existsSync(htmlPath) ? readFileSync(htmlPath, 'utf8') : '';
  const sizeOf = (file) => gzipSync(readFileSync(join(dist, file))).length;
  const r = report(manifest, html, sizeOf, budget);
  for (const line of formatReport(r)) console.log(line);
  return r.ok ? 0 : 1;
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`check-size: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  }
}
