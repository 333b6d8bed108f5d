import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * The Train page end to end (issue "Must show 6"): start a preset, see the chart data move, pause,
 * reload, resume from the saved snapshot, open the trained policy in Build. Small B, G and one
 * epoch, so an iteration takes a moment on the CPU backend.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const attr = (page: Page, testId: string, name: string): Promise<string | null> =>
  page.locator(`[data-testid="${testId}"]`).getAttribute(name);

const iteration = async (page: Page): Promise<number> =>
  Number(await page.locator('[data-testid=train-iteration]').innerText());

async function waitFor<A extends string | number | undefined>(
  page: Page,
  fn: (arg: A) => boolean,
  arg?: A,
): Promise<void> {
  await page.waitForFunction(fn as (arg: unknown) => boolean, arg, { timeout: 60_000 });
}

/** Small, fast settings through the form itself. */
async function smallRun(page: Page, compute: 'cpu' | 'webgpu' | 'auto'): Promise<void> {
  await page.click('[data-testid=train-preset-robustness]');
  await page.click('.train-config summary');
  for (const [field, value] of [
    ['tasksPerIteration', '2'],
    ['groupSize', '2'],
    ['epochs', '1'],
    ['minibatch', '32'],
  ] as const)
    await page.fill(`[data-testid=train-field-${field}]`, value);
  await page.selectOption('[data-testid=train-compute]', compute);
}

/**
 * Charts out of view are not redrawn: scroll one into view and wait until it shows `want` points
 * (or, without `want`, until it has drawn at least once), then read its count.
 */
async function shownPoints(page: Page, id = 'reward', want?: number): Promise<number> {
  await page.locator(`[data-testid=train-chart-${id}]`).scrollIntoViewIfNeeded();
  await waitFor(
    page,
    ([chart, n]: [string, number]) => {
      const p = Number(
        document.querySelector(`[data-testid=train-chart-${chart}]`)?.getAttribute('data-points'),
      );
      return n < 0 ? p > 0 : p === n;
    },
    [id, want ?? -1] as never,
  );
  return Number(await attr(page, `train-chart-${id}`, 'data-points'));
}
const chartPoints = (page: Page, want?: number): Promise<number> => shownPoints(page, 'reward', want);

describe('Train page', () => {
  it('starts a preset, the charts move, pauses, resumes after a reload, opens the policy in Build', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    try {
      await page.locator('[data-testid=train-page]').waitFor();
      await smallRun(page, 'cpu');
      expect(await page.locator('[data-testid=train-field-problem]').count()).toBe(0);
      await page.click('[data-testid=train-start]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'running',
      );
      expect(await page.locator('[data-testid=train-backend]').innerText()).toContain(
        'cpu: CPU backend forced',
      );

      // The chart data move: the reward chart gains points, and so do the others.
      await page.locator('[data-testid=train-chart-reward]').scrollIntoViewIfNeeded();
      await waitFor(
        page,
        () =>
          Number(document.querySelector('[data-testid=train-chart-reward]')?.getAttribute('data-points')) >=
          2,
      );
      const before = await chartPoints(page);
      await waitFor(
        page,
        (n: number) =>
          Number(document.querySelector('[data-testid=train-chart-reward]')?.getAttribute('data-points')) > n,
        before,
      );
      expect(await chartPoints(page)).toBeGreaterThan(before);
      for (const id of ['accuracy', 'tokens', 'structure', 'entropy', 'kl', 'clip', 'grad', 'eps', 'roles'])
        expect(await shownPoints(page, id)).toBeGreaterThanOrEqual(1);
      expect(Number.isFinite(Number(await attr(page, 'train-chart-reward', 'data-last')))).toBe(true);
      expect(await page.locator('canvas').count()).toBeGreaterThanOrEqual(10);
      expect(await page.locator('[data-testid=train-sample-dag]').count()).toBe(1);

      await page.click('[data-testid=train-pause]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      );
      const pausedAt = await iteration(page);
      expect(pausedAt).toBeGreaterThanOrEqual(3);
      expect(await page.locator('[data-testid=train-status]').innerText()).toContain(
        `snapshot saved at iteration ${pausedAt}`,
      );
      expect(await chartPoints(page, pausedAt)).toBe(pausedAt);

      // Reload: the saved snapshot is offered and its history drawn.
      await page.reload();
      await page.locator('[data-testid=train-resumable]').waitFor();
      expect(await page.locator('[data-testid=train-resumable]').innerText()).toContain(
        `iteration ${pausedAt}`,
      );
      expect(await iteration(page)).toBe(pausedAt);
      expect(await chartPoints(page, pausedAt)).toBe(pausedAt);
      expect(await page.locator('[data-testid=train-preset-robustness]').isChecked()).toBe(true);

      await page.click('[data-testid=train-resume]');
      await waitFor(
        page,
        (n: number) => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= n + 2,
        pausedAt,
      );
      await page.click('[data-testid=train-pause]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      );
      const resumedTo = await iteration(page);
      expect(resumedTo).toBeGreaterThanOrEqual(pausedAt + 2);
      // One continuous history: the rows from before the reload and after it.
      expect(await chartPoints(page, resumedTo)).toBe(resumedTo);

      // Before/after on held-out tasks, with what each policy builds per axis.
      await page.click('[data-testid=train-evaluate]');
      await page.locator('[data-testid=train-structure]').waitFor({ timeout: 60_000 });
      expect(await page.locator('[data-testid=train-eval-row]').count()).toBe(3);
      const structure = await page
        .locator('[data-testid=train-structure-row]')
        .evaluateAll((rows) =>
          rows.map((r) => `${r.getAttribute('data-axis')}/${r.getAttribute('data-policy')}`),
        );
      expect(structure).toEqual([
        'robustness/prior',
        'robustness/random',
        `robustness/current (${resumedTo})`,
        'all/prior',
        'all/random',
        `all/current (${resumedTo})`,
      ]);

      await page.click('[data-testid=train-use-in-build]');
      await page.waitForURL(/#\/build$/);
      const select = page.locator('[data-testid=policy-select]');
      await select.waitFor();
      await waitFor(
        page,
        (want: string) =>
          (document.querySelector('[data-testid=policy-select]') as HTMLSelectElement | null)?.value === want,
        `checkpoint:trained:grpo:robustness:${resumedTo}`,
      );
      expect(await select.inputValue()).toBe(`checkpoint:trained:grpo:robustness:${resumedTo}`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

/**
 * A small CPU run with `setting` (a thread select) at 2: started, paused after its first
 * iteration, then one step, whose answer carries the backend line as it stands after that
 * iteration (a worker that failed to load or answer would show as "on 1 thread (… worker 1
 * stopped …)"). Returns that line.
 */
async function lineWithTwoThreads(setting: string, before?: (page: Page) => Promise<void>): Promise<string> {
  const { context, page, errors } = await openPage(browser, '#/train');
  try {
    await page.locator('[data-testid=train-page]').waitFor();
    await smallRun(page, 'cpu');
    await page.selectOption(`[data-testid=${setting}]`, '2');
    await before?.(page);
    await page.click('[data-testid=train-start]');
    await waitFor(
      page,
      () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
    );
    await page.click('[data-testid=train-pause]');
    await waitFor(
      page,
      () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
    );
    const done = await iteration(page);
    await page.click('[data-testid=train-step]');
    await waitFor(
      page,
      (n: number) =>
        Number(document.querySelector('[data-testid=train-iteration]')?.textContent) === n + 1 &&
        document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      done,
    );
    expect(errors).toEqual([]);
    return await page.locator('[data-testid=train-backend]').innerText();
  } finally {
    await context.close();
  }
}

describe('Train page: simulated sub-agents on worker threads', () => {
  it('runs an iteration with the simulator on 2 threads (a nested worker) and says so', async () => {
    expect(await lineWithTwoThreads('train-sim-threads')).toMatch(
      /^cpu: .+; simulated sub-agents on 2 threads$/,
    );
  });
});

describe('Train page: rollouts on worker threads', () => {
  it('runs iterations with rollouts sampled on 2 threads (a nested rollout worker) and says so', async () => {
    const line = await lineWithTwoThreads('train-rollout-threads', async (page) => {
      // Rollout workers simulate their own blocks: the simulator pool is off with them.
      expect(await page.locator('[data-testid=train-sim-threads]').isDisabled()).toBe(true);
    });
    expect(line).toMatch(/^cpu: .+; rollouts on 2 threads$/);
  });
});

describe('Train page on WebGPU (SwiftShader)', () => {
  it('auto: shows the backend the probe chose and why (SwiftShader here: a software adapter, so wasm SIMD)', async () => {
    const { context, page, errors } = await openPage(browser, '#/train');
    try {
      await page.locator('[data-testid=train-page]').waitFor();
      await smallRun(page, 'auto');
      await page.click('[data-testid=train-start]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'running',
      );
      // On a hardware adapter the same line reads "webgpu: hardware adapter <name>: WebGPU backend".
      expect(await page.locator('[data-testid=train-backend]').innerText()).toMatch(
        /^wasm: .*swiftshader.* is a software adapter, slower than the CPU backends: WebAssembly SIMD backend, one thread \(.+\); simulated sub-agents on \d+ threads?$/i,
      );
      await page.click('[data-testid=train-pause]');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('loses the device mid-iteration, says so, and goes on on WebAssembly SIMD with at most one iteration lost', async () => {
    const { context, page, errors } = await openPage(browser, '?train-test-hooks#/train');
    try {
      await page.locator('[data-testid=train-page]').waitFor();
      await smallRun(page, 'webgpu');
      await page.click('[data-testid=train-start]');
      await waitFor(
        page,
        () => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= 1,
      );
      expect(await page.locator('[data-testid=train-backend]').innerText()).toMatch(
        /^webgpu: WebGPU forced on/,
      );
      await page.click('[data-testid=train-lose-device]');
      await waitFor(page, () => document.body.dataset.trainDeviceLossArmed === 'true');
      const notice = page.locator('[data-testid=train-notice]');
      await notice.waitFor({ timeout: 60_000 });
      expect(await notice.innerText()).toMatch(/WebGPU device was lost during iteration \d+/);
      expect(await page.locator('[data-testid=train-backend]').innerText()).toMatch(
        /^wasm: the WebGPU device was lost \(.+\): continuing on the WebAssembly SIMD backend/,
      );
      const lostAt = Number(
        /resumed on the WebAssembly SIMD backend from iteration (\d+)/.exec(await notice.innerText())?.[1],
      );
      await waitFor(
        page,
        (n: number) => Number(document.querySelector('[data-testid=train-iteration]')?.textContent) >= n + 2,
        lostAt,
      );
      await page.click('[data-testid=train-pause]');
      await waitFor(
        page,
        () => document.querySelector('[data-testid=train-status]')?.getAttribute('data-status') === 'paused',
      );
      // Every iteration is on the chart once: none skipped, none counted twice.
      const n = await iteration(page);
      expect(await chartPoints(page, n)).toBe(n);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
