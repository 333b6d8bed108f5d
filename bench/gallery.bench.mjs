/**
 * `npm run bench:gallery`: the Gallery with 5,000 recent traces, in the built app (dist/) in
 * headless Chromium. The traces come in the way a user's do: generated MAS-Orchestra case files
 * (250 slides each, the shape of a case page) chosen in the gallery's file input, kept in IndexedDB.
 * Then, per run:
 * - open: a reload of the gallery until the list shows its first rows and the count of all traces
 *   (IndexedDB read, validation, the search index, grouping, the first render);
 * - first search: right after each open, one search while the page is still settling;
 * - search: on a settled page, a query typed into the search box until the list shows its result
 *   (the count and the rows), for words, a phrase, field filters, and "aime24 row 130"-style queries.
 * Baseline in the same run: the same gallery holding 200 traces (the old cap); each 5,000-trace
 * time is given with its ratio to the 200-trace time. The two galleries take turns run by run.
 * Writes bench/results/gallery.json and the "## Gallery" section of docs/benchmarks.md.
 * Options: --runs N (searches per query and opens per size; default 15), --quick (5 runs).
 */
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsArg = args.indexOf('--runs');
const RUNS = runsArg >= 0 ? Math.max(1, Number(args[runsArg + 1]) || 15) : quick ? 5 : 15;
const PER_FILE = 250;
const SIZES = [5000, 200];
const BUDGET_MS = 100;

// Same flags as tests/e2e/browser.ts.
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

// ------------------------------------------------------------------ data

/** A slide of a MAS-Orchestra case page: a direct answer, every fifth one wrong. */
function slide(file, row) {
  const truth = String((row * row + 7 * file) % 1000);
  return {
    row,
    step: '130',
    question:
      `Benchmark problem ${row} of file ${file}: let $x_${row}$ be the smallest positive integer such that ` +
      `$x^2 + ${file}x$ is divisible by ${row + 11}. Find the remainder when $x_${row}$ is divided by 1000.`,
    thinking: '',
    mas_code: '',
    image: '',
    error: false,
    error_msg: '',
    execution_output: row % 5 === 0 ? String(Number(truth) + 1) : truth,
    ground_truth: truth,
  };
}

const fileName = (k) => `bench_case_${String(k).padStart(2, '0')}_aime24.json`;

/** Writes `size` slides as files of at most PER_FILE; returns their paths. */
function writeFiles(dir, size) {
  const at = join(dir, String(size));
  mkdirSync(at, { recursive: true });
  const paths = [];
  for (let k = 0; k * PER_FILE < size; k++) {
    const n = Math.min(PER_FILE, size - k * PER_FILE);
    const p = join(at, fileName(k));
    writeFileSync(p, JSON.stringify(Array.from({ length: n }, (_, row) => slide(k, row))));
    paths.push(p);
  }
  return paths;
}

/** The queries, with how many traces each must find in a gallery of `size` (counted here, not by the app). */
function queries(size) {
  const files = Math.ceil(size / PER_FILE);
  const rows = (k) => Math.min(PER_FILE, size - k * PER_FILE);
  let wrong = 0;
  let row130 = 0;
  for (let k = 0; k < files; k++) {
    for (let r = 0; r < rows(k); r++) if (r % 5 === 0) wrong++;
    if (rows(k) > 130) row130++;
  }
  return [
    { label: 'one word (every trace matches)', q: 'remainder', expect: size },
    { label: 'two words, one in few traces', q: 'divisible 137.', expect: files },
    { label: '"a quoted phrase"', q: '"problem 199 of file 0:"', expect: 1 },
    { label: 'aime24 row 130 (field filter from words)', q: 'aime24 row 130', expect: row130 },
    { label: 'file:case_00 row:130', q: 'file:case_00 row:130', expect: 1 },
    { label: 'result:wrong', q: 'result:wrong', expect: wrong },
  ];
}

// ------------------------------------------------------------------ static server

const TYPES_BY_EXT = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wasm': 'application/wasm',
};

function serve(dir) {
  const base = resolve(dir);
  const server = createServer((req, res) => {
    let file = normalize(join(base, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)));
    if (!file.startsWith(base)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': TYPES_BY_EXT[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${server.address().port}/` })),
  );
}

// ------------------------------------------------------------------ measurement

/** Reloads the gallery; ms from navigation start to the first frame with the list and its full count. */
async function openRun(page, size) {
  await page.reload({ waitUntil: 'commit' });
  const handle = await page.waitForFunction(
    (n) => {
      const count = document.querySelector('[data-testid=recents-count]');
      return count?.getAttribute('data-count') === String(n) &&
        document.querySelector('[data-testid=recent-item]')
        ? performance.now()
        : false;
    },
    size,
    { polling: 'raf', timeout: 120_000 },
  );
  return handle.jsonValue();
}

/**
 * Types `q` (one input event, as a paste) and resolves with the ms until the DOM shows the result:
 * the count says "<expect> of <size>" and rows are drawn. A MutationObserver catches the change.
 */
async function searchRun(page, q, expect) {
  return page.evaluate(
    ({ q, expect }) =>
      new Promise((ok, fail) => {
        const input = document.querySelector('[data-testid=gallery-search]');
        const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set;
        const done = () => {
          const c = document.querySelector('[data-testid=recents-count]');
          return (
            c?.getAttribute('data-count') === String(expect) &&
            (c.textContent ?? '').includes(' of ') &&
            (expect === 0 || document.querySelector('[data-testid=recent-item]') !== null)
          );
        };
        const timer = setTimeout(() => fail(new Error(`no result for ${q} (want ${expect})`)), 20_000);
        const t0 = performance.now();
        const obs = new MutationObserver(() => {
          if (!done()) return;
          const t = performance.now() - t0;
          obs.disconnect();
          clearTimeout(timer);
          ok(t);
        });
        obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
        setValue.call(input, q);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    { q, expect },
  );
}

/** Back to the empty search (untimed). */
async function clearSearch(page, size) {
  await page.fill('[data-testid=gallery-search]', '');
  await page.waitForFunction((n) => {
    const c = document.querySelector('[data-testid=recents-count]');
    return c?.getAttribute('data-count') === String(n) && !(c.textContent ?? '').includes(' of ');
  }, size);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const r1 = (x) => Math.round(x * 10) / 10;

async function main() {
  if (!existsSync(join(root, 'dist/index.html'))) {
    console.error('dist/ is missing: run `npm run bench:gallery` (it builds first).');
    process.exit(1);
  }
  const tmp = mkdtempSync(join(tmpdir(), 'baton-gallery-bench-'));
  const { server, url } = await serve(join(root, 'dist'));
  const load0 = loadavg()[0];
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const sessions = [];
  try {
    for (const size of SIZES) {
      const files = writeFiles(tmp, size);
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(url);
      await page.locator('[data-testid=gallery-search]').waitFor();
      const t0 = Date.now();
      await page.setInputFiles('[data-testid=file-input]', files);
      await page.waitForFunction(
        (n) => document.querySelector('[data-testid=import-count]')?.getAttribute('data-count') === String(n),
        size,
        { timeout: 600_000 },
      );
      const importMs = Date.now() - t0;
      await page.goto(`${url}#/`);
      await page.locator('[data-testid=recent-item]').first().waitFor({ timeout: 120_000 });
      sessions.push({ size, page, context, errors, importMs, open: [], firstSearch: [], search: new Map() });
      console.log(`${size} traces imported through the file input in ${(importMs / 1000).toFixed(1)} s`);
    }

    // Warm-up: one open and one pass of the searches each, untimed.
    for (const s of sessions) {
      await openRun(s.page, s.size);
      for (const { q, expect } of queries(s.size)) {
        await searchRun(s.page, q, expect);
        await clearSearch(s.page, s.size);
      }
    }
    // Opens: a reload, then at once the first search (the page is still settling: lazy chunks,
    // the examples, the search index built once the list is drawn).
    const first = queries(SIZES[0])[0];
    for (let run = 0; run < RUNS; run++) {
      for (const s of sessions) {
        s.open.push(await openRun(s.page, s.size));
        s.firstSearch.push(await searchRun(s.page, first.q, queries(s.size)[0].expect));
        await clearSearch(s.page, s.size);
      }
      process.stdout.write(`open ${run + 1}/${RUNS}\r`);
    }
    // Searches on a settled page.
    for (const s of sessions) await s.page.waitForTimeout(1000);
    for (let run = 0; run < RUNS; run++) {
      for (const s of sessions) {
        for (const { label, q, expect } of queries(s.size)) {
          const t = await searchRun(s.page, q, expect);
          if (!s.search.has(label)) s.search.set(label, []);
          s.search.get(label).push(t);
          await clearSearch(s.page, s.size);
        }
      }
      process.stdout.write(`search ${run + 1}/${RUNS}\r`);
    }
    for (const s of sessions) if (s.errors.length > 0) throw new Error(`page errors: ${s.errors.join('; ')}`);

    const [big, base] = sessions;
    const row = (label, a, b) => ({
      label,
      p50_ms: r1(pct(a, 50)),
      p95_ms: r1(pct(a, 95)),
      baseline_p50_ms: r1(pct(b, 50)),
      baseline_p95_ms: r1(pct(b, 95)),
      ratio_p50: r1(pct(a, 50) / pct(b, 50)),
    });
    const results = [
      row('open the gallery (reload → list drawn)', big.open, base.open),
      row(
        `first search right after opening: ${first.label} → ${big.size.toLocaleString('en')} of ${big.size.toLocaleString('en')}`,
        big.firstSearch,
        base.firstSearch,
      ),
      ...queries(big.size).map((qq) =>
        row(
          `search: ${qq.label} → ${qq.expect.toLocaleString('en')} of ${big.size.toLocaleString('en')}`,
          big.search.get(qq.label),
          base.search.get(qq.label),
        ),
      ),
    ];
    const out = {
      command: 'npm run bench:gallery',
      chromium: browser.version(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown' },
      load_average: { before: r1(load0), after: r1(loadavg()[0]) },
      runs: RUNS,
      sizes: SIZES,
      import_ms: Object.fromEntries(sessions.map((s) => [s.size, s.importMs])),
      budget_ms: BUDGET_MS,
      results,
    };
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/gallery.json'), `${JSON.stringify(out, null, 2)}\n`);
    writeDocs(out);
    console.table(results);
    const settled = results.slice(2);
    const worst = Math.max(...settled.map((r) => r.p95_ms));
    const worst50 = Math.max(...settled.map((r) => r.p50_ms));
    console.log(
      `searches at ${big.size} traces on a settled page: slowest p50 ${worst50} ms, slowest p95 ${worst} ms (goal: under ${BUDGET_MS} ms)`,
    );
  } finally {
    await browser.close();
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function writeDocs(out) {
  const path = join(root, 'docs/benchmarks.md');
  const [big, base] = out.sizes;
  const lines = [
    '## Gallery',
    '',
    'Measured with `npm run bench:gallery` (bench/gallery.bench.mjs) on the built app in headless Chromium ' +
      `${out.chromium}, ${out.machine.cpus} × ${out.machine.cpu} (1-minute load average ${out.load_average.before} → ` +
      `${out.load_average.after}); raw rows in \`bench/results/gallery.json\`.`,
    `The gallery holds ${big.toLocaleString('en')} recent traces, imported through its file input as ` +
      `${big / 250} generated MAS-Orchestra case files of 250 slides (import: ${(out.import_ms[big] / 1000).toFixed(1)} s ` +
      `for ${big.toLocaleString('en')}, ${(out.import_ms[base] / 1000).toFixed(1)} s for ${base}) and kept in IndexedDB. ` +
      '"Open" is a reload of the gallery until the list is drawn with the count of every trace (IndexedDB read, ' +
      'validation, grouping into collections, first render); right after it, one search while the page is still ' +
      'settling (lazy chunks, the examples, the search index built once the list is drawn). The other searches ' +
      'run on a settled page. A search is one input event (a paste) ' +
      'until the DOM shows the result: the count and the rows. Baseline in the same run: the same gallery ' +
      `with ${base} traces (the old cap), the two taking turns; ${out.runs} runs of each after one warm-up. ` +
      `Goal: every search under ${out.budget_ms} ms at ${big.toLocaleString('en')}.`,
    '',
    `| what | ${big.toLocaleString('en')} traces p50 / p95 ms | ${base} traces p50 / p95 ms | ratio (p50) |`,
    '|---|---:|---:|---:|',
    ...out.results.map(
      (r) =>
        `| ${r.label} | ${r.p50_ms} / ${r.p95_ms} | ${r.baseline_p50_ms} / ${r.baseline_p95_ms} | ${r.ratio_p50}× |`,
    ),
    '',
    "The slow case is the first search right after opening, while the page is still busy after loading (its examples, lazy chunks, code the engine has not optimised yet): at 5,000 traces it misses the 100 ms goal (its row above). Once the page has settled, every search's median is far under it. This is a shared two-core virtual machine: the load average above is what other work put on it during the run, and the p95 columns move with it (the 200-trace baseline's p95 swings as much).",
    '',
    'Why it holds at 5,000: the list draws only the rows in view (fixed-height rows, a dozen either side), ' +
      "so the DOM is the same size at 200 and 5,000; each entry's searchable text is lower-cased once " +
      '(`recentDoc`, memoised per entry) and a search is one parse (`src/view/search.ts`) and a scan of ' +
      'those strings; typing goes through `useDeferredValue`, so the input never waits for the list.',
    '',
  ];
  const section = `${lines.join('\n')}\n`;
  let doc = existsSync(path) ? readFileSync(path, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf('\n## Gallery');
  if (start >= 0) {
    const next = doc.indexOf('\n## ', start + 1);
    doc = doc.slice(0, start + 1) + section + (next >= 0 ? doc.slice(next + 1) : '');
  } else {
    doc = `${doc.trimEnd()}\n\n${section}`;
  }
  writeFileSync(path, doc);
}

await main();
