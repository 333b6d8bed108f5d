import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * The Build page end to end: a MAS built with the mouse and the keyboard, undo, EXIT, a run on the
 * simulator, the resulting trace in the viewer, and its share link opened in a fresh context.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const count = (page: Page, testId: string): Promise<number> =>
  page.locator(`[data-testid="${testId}"]`).count();

async function waitForCount(page: Page, testId: string, n: number): Promise<void> {
  await page.waitForFunction(
    ([id, want]) => document.querySelectorAll(`[data-testid="${id}"]`).length === want,
    [testId, n] as const,
  );
}

/** Waits until no step is in flight: the distribution is enabled again and no partial MAS is running. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const step = document.querySelector<HTMLButtonElement>('[data-testid="build-step"]');
    const running = [...document.querySelectorAll('[data-testid="step-result"]')].some((e) =>
      (e.textContent ?? '').includes('running'),
    );
    return (
      step !== null &&
      !running &&
      (step.disabled === false || document.querySelector('[data-testid="build-exited"]'))
    );
  });
}

interface Bar {
  action: string;
  p: number;
  shown: string;
  masked: boolean;
  disabled: boolean;
}

const readBars = (page: Page): Promise<Bar[]> =>
  page.$$eval('[data-testid="dist-bar"]', (els) =>
    els.map((e) => ({
      action: e.getAttribute('data-action') ?? '',
      p: Number(e.getAttribute('data-p')),
      shown: e.querySelector('[data-testid="dist-value"]')?.textContent ?? '',
      masked: e.getAttribute('data-masked') === 'true',
      disabled: (e as HTMLButtonElement).disabled,
    })),
  );

function expectValidDistribution(bars: Bar[]): void {
  expect(bars.length).toBe(12);
  const sum = bars.reduce((a, b) => a + b.p, 0);
  expect(Math.abs(sum - 1)).toBeLessThan(1e-6);
  // The shown values (3 decimals) add up to 1 within their rounding.
  const shown = bars.reduce((a, b) => a + (b.shown.startsWith('<') ? 0 : Number(b.shown)), 0);
  expect(Math.abs(shown - 1)).toBeLessThan(0.01);
  for (const b of bars.filter((x) => x.masked)) {
    expect(b.p).toBe(0);
    expect(b.shown).toBe('0');
    expect(b.disabled).toBe(true);
  }
}

/** "Construction step k / N" in the viewer's construction card, after moving to the first step. */
async function constructionTotal(page: Page): Promise<number> {
  await page.locator('[data-testid="replay"]').waitFor();
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  const card = page.locator('[data-testid="construction-step"]');
  await card.waitFor();
  const m = /Construction step 1 \/ (\d+)/.exec((await card.textContent()) ?? '');
  expect(m).not.toBeNull();
  return Number(m?.[1]);
}

interface StepJson {
  action: { kind: string; role?: string; agentId?: string; links?: string[] };
  roleDistribution: { action: string; p: number }[];
  edgeProbabilities?: { from: string; p: number }[];
  logProb: number;
  chooser: string;
  intermediateAnswer?: string | null;
}

/**
 * Builds a whole construction by auto-play on the chosen compute backend, opens it in the viewer
 * and returns the trace the viewer downloads.
 */
async function autoBuild(
  page: Page,
  compute: 'cpu' | 'webgpu',
): Promise<{ designer: { backend?: string; seed?: number }; construction: StepJson[] }> {
  await page.goto(page.url().replace(/#.*$/, '') + '#/build');
  await page.locator('[data-testid="build-page"]').waitFor();
  await page.locator('[data-testid="source-masbench"]').check({ force: true });
  await page.locator('[data-testid="task-axis"]').selectOption('parallel');
  await page.locator('[data-testid="task-value"]').fill('5');
  await page.locator('[data-testid="task-seed"]').fill('2');
  await page.locator('[data-testid="policy-select"]').selectOption('random');
  await page.locator('[data-testid="policy-seed"]').fill('3');
  await page.locator('[data-testid="sampling-seed"]').fill('11');
  await page.locator('[data-testid="build-compute"]').selectOption(compute);
  await page.locator('[data-testid="build-start"]').click();
  await page.locator('[data-testid="dist-bar"]').first().waitFor();
  expect(await page.locator('[data-testid="build-backend"]').textContent()).toBe(compute);
  await page.locator('[data-testid="build-speed"]').selectOption({ index: 3 });
  await page.locator('[data-testid="build-autoplay"]').click();
  await page.locator('[data-testid="build-exited"]').waitFor({ timeout: 60_000 });
  await settled(page);
  return openAndDownload(page);
}

/** Opens the construction so far in the viewer and returns the trace the viewer downloads. */
async function openAndDownload<T>(page: Page): Promise<T> {
  await page.locator('[data-testid="build-open"]').click();
  await page.waitForURL(/#\/trace\//);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.click('[data-testid="download-json"]'),
  ]);
  return JSON.parse(readFileSync(await download.path(), 'utf8')) as T;
}

describe('build page', () => {
  it('builds a MAS with mouse and keyboard, undoes, exits, runs it and shares the trace', async () => {
    const { context, page, errors } = await openPage(browser, '#/build');
    try {
      await page.locator('[data-testid="build-page"]').waitFor();
      await page.locator('[data-testid="source-masbench"]').check({ force: true });
      await page.locator('[data-testid="task-axis"]').selectOption('depth');
      await page.locator('[data-testid="task-value"]').fill('4');
      await page.locator('[data-testid="task-seed"]').fill('1');
      expect(await page.locator('[data-testid="ground-truth"]').textContent()).toMatch(/^\d+(, \d+)*$/);
      // The setup column is taller than the window: its primary action stays in view at its bottom
      // edge, where nothing covers it (the element there is the button).
      const start = await page.locator('[data-testid="build-start"]').boundingBox();
      const viewport = page.viewportSize();
      expect(start && viewport && start.y + start.height <= viewport.height).toBe(true);
      expect(
        await page.evaluate(() => {
          const b = document.querySelector('[data-testid="build-start"]') as HTMLElement;
          const r = b.getBoundingClientRect();
          return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b;
        }),
      ).toBe(true);
      await page.locator('[data-testid="build-start"]').click();
      await page.locator('[data-testid="dist-bar"]').first().waitFor();
      expect(await page.locator('[data-testid="build-backend"]').textContent()).toMatch(
        /^(cpu|wasm|webgpu)$/,
      );

      // Empty MAS: DELETE and EXIT are masked.
      let bars = await readBars(page);
      expectValidDistribution(bars);
      expect(bars.find((b) => b.action === 'DELETE')?.masked).toBe(true);
      expect(bars.find((b) => b.action === 'EXIT')?.masked).toBe(true);

      // 1. A sampled step with the mouse.
      await page.locator('[data-testid="build-step"]').click();
      await waitForCount(page, 'step-item', 1);
      await settled(page);
      expect(await page.locator('[data-testid="step-item"]').first().getAttribute('data-chooser')).toBe(
        'policy',
      );

      // 2. Pick Solver by clicking its bar, toggle a candidate edge, then step from the keyboard.
      bars = await readBars(page);
      expectValidDistribution(bars);
      await page.locator('[data-testid="dist-bar"][data-action="Solver"]').click();
      await page.waitForFunction(
        () =>
          document
            .querySelector('[data-testid="dist-bar"][data-action="Solver"]')
            ?.getAttribute('aria-pressed') === 'true',
      );
      expect(await page.locator('[data-testid="next-choice"]').textContent()).toContain('Solver');
      const box = page.locator('[data-testid="edge-checkbox"]').first();
      const from = await box.getAttribute('data-from');
      const before = await box.isChecked();
      await box.click();
      expect(await box.isChecked()).toBe(!before);
      // The same link from the graph: its dashed edge's label toggles it back, the dashed path again.
      // (The candidate curve is point-symmetric, so the centre of its box lies on the path.)
      await page.locator(`[data-testid="candidate-label"][data-from="${from}"]`).click();
      expect(await box.isChecked()).toBe(before);
      await page
        .locator(`[data-testid="rf__edge-cand:${from}"] .react-flow__edge-interaction`)
        .click({ force: true });
      expect(await box.isChecked()).toBe(!before);
      await page.locator('[data-testid="build-graph"]').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('s');
      await waitForCount(page, 'step-item', 2);
      await settled(page);
      const second = page.locator('[data-testid="step-item"]').nth(1);
      expect(await second.getAttribute('data-chooser')).toBe('user');
      expect(await second.textContent()).toContain('ADD Solver');
      expect((await second.textContent())?.includes(`← ${from}`)).toBe(!before);

      // 3. Greedy from the keyboard, then undo it: the graph and the step list shrink.
      await page.keyboard.press('g');
      await waitForCount(page, 'step-item', 3);
      await settled(page);
      const agentsAfter3 = await count(page, 'agent-node');
      const stepsAfter3 = await count(page, 'step-item');
      await page.keyboard.press('u');
      await waitForCount(page, 'step-item', stepsAfter3 - 1);
      await settled(page);
      expect(await count(page, 'step-undone')).toBe(1);
      expect(await count(page, 'agent-node')).toBeLessThan(agentsAfter3);

      // Per-step results from the simulator: every step shows an answer and a reward.
      const rewards = await page
        .locator('[data-testid="step-item"] [data-testid="step-reward"]')
        .allTextContents();
      expect(rewards).toHaveLength(2);
      for (const r of rewards) expect(r).toMatch(/^r = [+-]\d+\.\d\d$/);

      // 4. EXIT from the keyboard.
      bars = await readBars(page);
      expectValidDistribution(bars);
      await page.keyboard.press('e');
      await page.locator('[data-testid="build-exited"]').waitFor();
      await settled(page);
      const steps = await count(page, 'step-item');
      expect(steps).toBe(3);
      // After EXIT the Build page counts the final design as the trace page does.
      const buildCount = (await page.locator('[data-testid="agent-count"]').innerText()).trim();
      const perf = Number(await page.locator('[data-testid="build-perf"]').getAttribute('data-median-ms'));
      expect(perf).toBeGreaterThan(0);
      expect(perf).toBeLessThan(16);

      // 5. Run on the simulator: the trace opens in the viewer and replays the construction.
      await page.locator('[data-testid="build-run"]').click();
      await page.waitForURL(/#\/trace\//);
      const title = (await page.locator('[data-testid="trace-title"]').textContent()) ?? '';
      expect(title).toMatch(/^MASBench depth \d+ \(seed \d+\) · prior construction$/);
      expect(await page.locator('[data-testid="simulated-badge"]').textContent()).toContain('SIMULATED');
      expect(await constructionTotal(page)).toBe(steps);
      expect((await page.locator('[data-testid="trace-agent-count"]').innerText()).trim()).toBe(buildCount);
      await page.keyboard.press('End');

      // 6. Its share link opens the same trace, with the same construction, in a fresh context.
      await page.locator('[data-testid="share-button"]').click();
      const link = await page.locator('[data-testid="share-link"]').inputValue();
      expect(link).toContain('#t=');
      const fresh = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        const other = await fresh.newPage();
        const otherErrors: string[] = [];
        other.on('pageerror', (e) => otherErrors.push(String(e)));
        await other.goto(link);
        await other.waitForURL(/#\/trace\//);
        expect(await other.locator('[data-testid="trace-title"]').textContent()).toBe(title);
        expect(await constructionTotal(other)).toBe(steps);
        expect(otherErrors).toEqual([]);
      } finally {
        await fresh.close();
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps links toggled before a role bar is clicked, says the pick waits for Step, and labels and explains steps', async () => {
    const { context, page, errors } = await openPage(browser, '#/build');
    try {
      await page.locator('[data-testid="build-start"]').click();
      await page.locator('[data-testid="dist-bar"]').first().waitFor();
      await page.keyboard.press('s');
      await waitForCount(page, 'step-item', 1);
      await settled(page);
      expect(await page.locator('[data-testid="step-chooser"]').first().textContent()).toBe('sampled');
      // The first step's r_t: a number with its case and terms, or n/a with the reason.
      const reward = page.locator('[data-testid="step-reward-detail"]').first();
      await reward.locator('summary').click();
      const terms = (await reward.locator('[data-testid="step-reward-terms"]').textContent()) ?? '';
      expect(terms).toMatch(/^(wrong|right) → (wrong|right)r_t = .+Σ_k≥t|^n\/a — \w/);
      await page.locator('[data-testid="build-reward-total"]').waitFor();

      // Toggle a candidate link first, then click a role bar: the toggled link stays.
      const box = page.locator('[data-testid="edge-checkbox"]').first();
      const from = (await box.getAttribute('data-from')) as string;
      const before = await box.isChecked();
      await box.click();
      expect(await box.isChecked()).toBe(!before);
      await page.locator('[data-testid="dist-bar"][data-action="Verifier"]').click();
      await page.waitForFunction(
        () =>
          document
            .querySelector('[data-testid="dist-bar"][data-action="Verifier"]')
            ?.getAttribute('aria-pressed') === 'true',
      );
      const kept = page.locator(`[data-testid="edge-checkbox"][data-from="${from}"]`);
      expect(await kept.isChecked()).toBe(!before);
      const pending = page.locator('[data-testid="build-pick-pending"]');
      expect(await pending.textContent()).toMatch(/Picked, not taken yet: ADD Verifier.*Press Step/);
      expect(await count(page, 'step-item')).toBe(1);

      await page.locator('[data-testid="build-graph"]').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('s');
      await waitForCount(page, 'step-item', 2);
      await settled(page);
      await pending.waitFor({ state: 'detached' });
      const second = page.locator('[data-testid="step-item"]').nth(1);
      expect(await second.locator('[data-testid="step-chooser"]').textContent()).toBe('you');
      expect(await second.textContent()).toContain('ADD Verifier');
      expect((await second.textContent())?.includes(`← ${from}`)).toBe(!before);

      await page.keyboard.press('g');
      await waitForCount(page, 'step-item', 3);
      await settled(page);
      expect(await page.locator('[data-testid="step-chooser"]').nth(2).textContent()).toBe('greedy');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('lists the keyboard shortcuts in a help popover and redoes with Ctrl+Y', async () => {
    const { context, page, errors } = await openPage(browser, '#/build');
    try {
      await page.locator('[data-testid="build-start"]').click();
      await page.locator('[data-testid="dist-bar"]').first().waitFor();
      await page.locator('[data-testid="build-help-button"]').click();
      const help = page.locator('[data-testid="build-help"]');
      await help.waitFor();
      for (const k of ['S', 'G', 'Del', 'E', 'Space', 'Ctrl+Z'])
        expect(await help.textContent()).toContain(k);
      await page.keyboard.press('?');
      await help.waitFor({ state: 'detached' });

      await page.keyboard.press('1');
      await page.waitForFunction(
        () => document.querySelector('[data-testid="dist-bar"]')?.getAttribute('aria-pressed') === 'true',
      );
      await page.keyboard.press('s');
      await waitForCount(page, 'step-item', 1);
      await settled(page);
      expect(await page.locator('[data-testid="step-item"]').first().getAttribute('data-chooser')).toBe(
        'user',
      );
      await page.keyboard.press('Control+z');
      await waitForCount(page, 'step-item', 0);
      await page.keyboard.press('Control+y');
      await waitForCount(page, 'step-item', 1);

      // Share from the Build page: the link replays the construction so far in the viewer.
      await page.keyboard.press('g');
      await waitForCount(page, 'step-item', 2);
      await settled(page);
      await page.locator('[data-testid="build-share"]').click();
      const link = await page.locator('[data-testid="share-link"]').inputValue();
      expect(link).toContain('#t=');
      const fresh = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      try {
        const other = await fresh.newPage();
        await other.goto(link);
        await other.waitForURL(/#\/trace\//);
        expect(await other.locator('[data-testid="trace-title"]').textContent()).toMatch(
          /^MASBench depth 4 \(seed 1\) · prior construction$/,
        );
        expect(await constructionTotal(other)).toBe(2);
      } finally {
        await fresh.close();
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('edits the role pool in a dialog, builds with it, and records its version in the trace', async () => {
    const { context, page, errors } = await openPage(browser, '#/build');
    try {
      await page.locator('[data-testid="build-roles-edit"]').click();
      const dialog = page.locator('[data-testid="roles-dialog"]');
      await dialog.waitFor();
      await dialog
        .locator('[data-testid="roles-item"] button.roles-pick', { hasText: 'Solver' })
        .first()
        .click();
      await dialog
        .locator('[data-testid="role-prompt"]')
        .fill('Solve the task like a careful accountant; end with "Answer: <value>".');
      // An empty name is refused inline and keeps Apply disabled.
      await dialog.locator('[data-testid="role-name"]').fill('');
      await dialog.locator('[data-testid="roles-field-error"]').first().waitFor();
      expect(await dialog.locator('[data-testid="roles-apply"]').isDisabled()).toBe(true);
      await dialog.locator('[data-testid="role-name"]').fill('Solver');
      await dialog.locator('[data-testid="roles-apply"]').click();
      await page.waitForFunction(() =>
        /\+[0-9a-f]{8}$/.test(
          document.querySelector('[data-testid="build-roles-version"]')?.textContent ?? '',
        ),
      );
      const version = (await page.locator('[data-testid="build-roles-version"]').textContent()) ?? '';
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });

      await page.locator('[data-testid="build-start"]').click();
      await page.locator('[data-testid="dist-bar"][data-action="Solver"]').click();
      await page.locator('[data-testid="build-step"]').click();
      await waitForCount(page, 'step-item', 1);
      await settled(page);
      const trace = await openAndDownload<{
        designer: { roles?: string };
        design: { agents: { id: string; description: string }[] };
      }>(page);
      expect(trace.designer.roles).toBe(version);
      expect(trace.design.agents.find((a) => a.id.startsWith('solver'))?.description).toContain(
        'careful accountant',
      );

      // The edited pool is kept: after a reload it is still the one in use.
      await page.goto(page.url().replace(/#.*$/, '') + '#/build');
      await page.reload();
      await page.locator('[data-testid="build-roles-version"]').waitFor();
      await page.waitForFunction(
        (v) => document.querySelector('[data-testid="build-roles-version"]')?.textContent === v,
        version,
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
  it('builds the same construction for the same seed on WebGPU (software adapter) and on the CPU', async () => {
    const { context, page, errors } = await openPage(browser, '#/build');
    try {
      const gpu = await autoBuild(page, 'webgpu');
      const cpu = await autoBuild(page, 'cpu');
      expect(gpu.designer).toMatchObject({ backend: 'webgpu', seed: 11 });
      expect(cpu.designer).toMatchObject({ backend: 'cpu', seed: 11 });
      const a = gpu.construction;
      const b = cpu.construction;
      // The untrained random policy spreads its probability, so several steps are real draws.
      expect(a.length).toBeGreaterThan(2);
      expect(a.map((x) => x.action)).toEqual(b.map((x) => x.action));
      expect(a.map((x) => x.intermediateAnswer)).toEqual(b.map((x) => x.intermediateAnswer));
      a.forEach((x, t) => {
        const y = b[t] as StepJson;
        expect(x.chooser).toBe('policy');
        expect(x.roleDistribution).toHaveLength(y.roleDistribution.length);
        x.roleDistribution.forEach((d, i) => {
          expect(d.action).toBe(y.roleDistribution[i]?.action);
          expect(Math.abs(d.p - (y.roleDistribution[i]?.p as number))).toBeLessThan(1e-4);
        });
        (x.edgeProbabilities ?? []).forEach((e, i) => {
          expect(e.from).toBe(y.edgeProbabilities?.[i]?.from);
          expect(Math.abs(e.p - (y.edgeProbabilities?.[i]?.p as number))).toBeLessThan(1e-4);
        });
        expect(Math.abs(x.logProb - y.logProb)).toBeLessThan(1e-3);
      });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
