/**
 * `npm run bench:train-ui`: how smooth the Train page stays while training runs. Serves a built app
 * (dist/, or `--dist DIR`), opens `#/train` in headless Chromium at 1440×900, starts a small run on
 * the CPU backend (robustness preset, B = 2, G = 2, one epoch, minibatch 32: many progress reports
 * per second, the page's worst case) and records the main thread's long tasks (a
 * PerformanceObserver on 'longtask': every task over 50 ms) for `--seconds` of training, counted from
 * the first finished iteration. Prints and writes count, longest and total long-task time, and the
 * iterations the worker finished in the window.
 *
 * `--baseline-dist DIR` measures a second build (the code before a change) in the same run, the two
 * taking turns `--runs` times each, so both see the same machine load. Writes
 * bench/results/train-ui.json and the "## Train page: main-thread long tasks while training"
 * section of docs/benchmarks.md (`--no-doc` skips it).
 */
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../tests/support/chromium.ts';
import { serveStatic } from '../tests/e2e/static-server.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? (argv[i + 1] ?? fallback) : fallback;
};
const seconds = Number(arg('seconds', '20'));
const runs = Number(arg('runs', '2'));
const dist = resolve(arg('dist', 'dist'));
const baselineDist = argv.includes('--baseline-dist') ? resolve(arg('baseline-dist', '')) : null;
const writeDoc = !argv.includes('--no-doc');

interface Sample {
  count: number;
  longestMs: number;
  totalMs: number;
  iterations: number;
  seconds: number;
}

declare global {
  interface Window {
    __longTasks?: { start: number; duration: number }[];
  }
}

async function measure(browser: Browser, url: string): Promise<Sample> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  try {
    await context.addInitScript(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => {
        for (const e of list.getEntries())
          window.__longTasks?.push({ start: e.startTime, duration: e.duration });
      }).observe({ type: 'longtask', buffered: true });
    });
    const page = await context.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${String(e)}`));
    await page.goto(`${url}#/train`);
    await page.locator('[data-testid=train-page]').waitFor();
    await page.click('[data-testid=train-preset-robustness]');
    await page.click('.train-config summary');
    for (const [field, value] of [
      ['tasksPerIteration', '2'],
      ['groupSize', '2'],
      ['epochs', '1'],
      ['minibatch', '32'],
    ] as const)
      await page.fill(`[data-testid=train-field-${field}]`, value);
    await page.selectOption('[data-testid=train-compute]', 'cpu');
    await page.click('[data-testid=train-start]');
    await page.waitForFunction(
      () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
      undefined,
      { timeout: 120_000 },
    );
    const t0 = await page.evaluate(() => performance.now());
    const it0 = Number(await page.locator('[data-testid=train-iteration]').innerText());
    await page.waitForTimeout(seconds * 1000);
    const { t1, tasks } = await page.evaluate(() => ({
      t1: performance.now(),
      tasks: window.__longTasks ?? [],
    }));
    const it1 = Number(await page.locator('[data-testid=train-iteration]').innerText());
    const inWindow = tasks.filter((t) => t.start >= t0 && t.start < t1);
    await page.click('[data-testid=train-pause]');
    return {
      count: inWindow.length,
      longestMs: Math.max(0, ...inWindow.map((t) => t.duration)),
      totalMs: inWindow.reduce((s, t) => s + t.duration, 0),
      iterations: it1 - it0,
      seconds: (t1 - t0) / 1000,
    };
  } finally {
    await context.close();
  }
}

interface Summary {
  label: string;
  dist: string;
  samples: Sample[];
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main(): Promise<void> {
  const targets: Summary[] = [];
  if (baselineDist) targets.push({ label: 'before', dist: baselineDist, samples: [] });
  targets.push({ label: baselineDist ? 'after' : 'current', dist, samples: [] });
  const servers = await Promise.all(targets.map((t) => serveStatic(t.dist)));
  const browser = await launchChromium();
  try {
    for (let r = 0; r < runs; r++)
      for (const [i, t] of targets.entries()) {
        const s = await measure(browser, (servers[i] as { url: string }).url);
        console.log(
          `${t.label} run ${r + 1}: ${s.count} long tasks in ${s.seconds.toFixed(1)} s, longest ${s.longestMs.toFixed(0)} ms, total ${s.totalMs.toFixed(0)} ms, ${s.iterations} iterations`,
        );
        t.samples.push(s);
      }
  } finally {
    await browser.close();
    for (const s of servers) s.server.close();
  }
  const load = loadAverage();
  const m = machine();
  writeResults('train-ui', { measured: new Date().toISOString(), machine: m, load, seconds, targets });
  const row = (t: Summary): string => {
    const c = t.samples;
    return `| ${t.label} | ${c.map((s) => s.count).join(', ')} | ${c.map((s) => s.longestMs.toFixed(0)).join(', ')} | ${c.map((s) => s.totalMs.toFixed(0)).join(', ')} | ${c.map((s) => s.iterations).join(', ')} | ${median(c.map((s) => s.longestMs)).toFixed(0)} |`;
  };
  const table = [
    '| build | long tasks (per run) | longest ms (per run) | total long-task ms (per run) | iterations in the window (per run) | median longest ms |',
    '|---|---|---|---|---|---:|',
    ...targets.map(row),
  ].join('\n');
  console.log(table);
  if (!writeDoc) return;
  writeDocSection(
    'Train page: main-thread long tasks while training',
    [
      'The Train page in headless Chromium (`/usr/bin/chromium`) at 1440×900 while a run trains on the',
      'CPU backend (robustness preset, B = 2, G = 2, one epoch, minibatch 32: many progress reports per',
      'second, simulated sub-agents), with a PerformanceObserver on `longtask` (main-thread tasks over',
      `50 ms) for ${seconds} s of training counted from the first finished iteration. Command:`,
      `\`npx tsx bench/train-ui.bench.ts ${argv.join(' ')}\` (\`npm run bench:train-ui\` builds dist/ first and measures it alone).`,
      baselineDist
        ? 'The old build ("before"): the base commit `git archive`d into a folder under /tmp, node_modules hard-linked with `cp -al`, `npx vite build` there; the two builds take turns in one run, on the same machine load.'
        : '',
      'Writes `bench/results/train-ui.json`.',
      '',
      `- Measured ${new Date().toISOString().slice(0, 10)} on ${m.cores} CPU cores (${m.cpu}), shared with other work (load average at the end ${load.join(', ')}).`,
      '',
      table,
      '',
    ].join('\n'),
  );
}

await main();
