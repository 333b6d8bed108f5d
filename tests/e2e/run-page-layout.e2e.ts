import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * The Run page on a 1440 × 900 screen, offline (the simulator): Run in view, the trace picker inside
 * its column, runs told apart by their titles, the final answer as the grader read it.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const byTest = (id: string): string => `[data-testid="${id}"]`;

type Box = { x: number; y: number; width: number; height: number };

async function box(page: Page, selector: string): Promise<Box> {
  const b = await page.locator(selector).first().boundingBox();
  if (!b) throw new Error(`${selector} is not on the page`);
  return b;
}

const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function openRunPage(): Promise<{ page: Page; close: () => Promise<void>; errors: string[] }> {
  const { context, page, errors } = await openPage(browser, '#/run');
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForSelector(byTest('run-page'));
  return { page, errors, close: () => context.close() };
}

/** Runs the parallel-branches example's design on the generated task with this seed; returns the trace title. */
async function runExampleDesign(page: Page, seed: number): Promise<string> {
  await page.goto(`${page.url().split('#')[0]}#/run`);
  await page.waitForSelector(byTest('run-page'));
  await page.check(byTest('run-backend-simulator'));
  await page.fill(byTest('run-bench-seed'), String(seed));
  await page.check(byTest('run-design-trace'));
  await page.waitForSelector(
    `${byTest('run-design-trace-select')} option[value="example-parallel-branches"]`,
    {
      state: 'attached',
    },
  );
  await page.selectOption(byTest('run-design-trace-select'), 'example-parallel-branches');
  await page.waitForSelector(byTest('design-valid'));
  await page.click(byTest('run-start'));
  await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
  return (await page.locator(byTest('trace-title')).innerText()).trim();
}

describe('run page at 1440 × 900', () => {
  it('keeps Run in view whichever design source is open', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      // The generated task's question makes the task card tall; the drawing editor, the design card.
      await page.check(byTest('run-backend-simulator'));
      await page.waitForSelector(byTest('run-bench-question'));
      for (const mode of ['paste', 'trace', 'draw'] as const) {
        await page.check(byTest(`run-design-${mode}`));
        const run = await box(page, byTest('run-start'));
        expect(run.y + run.height, mode).toBeLessThanOrEqual(900);
        expect(run.y, mode).toBeGreaterThanOrEqual(0);
      }
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says the design problems are in the Design section, which is above Run', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      await page.check(byTest('run-task-custom'));
      await page.fill(byTest('run-query'), 'Anything');
      await page.check(byTest('run-design-paste'));
      await page.fill(byTest('run-design-text'), JSON.stringify({ agents: [{ id: 'p', type: 'Nope' }] }));
      await page.waitForSelector(byTest('design-violation'));
      expect(await page.locator(byTest('run-blockers')).innerText()).toMatch(/listed under 2 · Design/);
      expect(await page.locator(byTest('run-blockers')).innerText()).not.toMatch(/below/);
      expect((await box(page, byTest('design-problems'))).y).toBeLessThan(
        (await box(page, byTest('run-start'))).y,
      );
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('never lets the Run bar cover 3 · Backend, however the cards are scrolled to it', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      await page.waitForSelector(byTest('run-bench-question'));
      for (const mode of ['paste', 'trace', 'draw'] as const) {
        await page.check(byTest(`run-design-${mode}`));
        const backend = page.locator('fieldset.run-card', { hasText: '3 · Backend' });
        // Scrolled to it as the browser does for "end" (the last line at the bottom of its scroller),
        // each of its lines is on top where it is drawn: nothing covers it.
        for (const part of await backend.locator('legend, p').all()) {
          await part.evaluate((el) => el.scrollIntoView({ block: 'end' }));
          const covered = await part.evaluate((el) => {
            const r = el.getBoundingClientRect();
            const hit = document.elementFromPoint(r.left + 4, r.top + r.height / 2);
            return (
              hit !== null && !el.contains(hit) && !hit.contains(el) && hit.closest('.run-controls') !== null
            );
          });
          expect(covered, `${mode}: ${await part.innerText()}`).toBe(false);
        }
        const run = await box(page, byTest('run-start'));
        expect(run.y + run.height, mode).toBeLessThanOrEqual(900);
      }
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('starts on the simulator without a key, previews the design and carries a pasted one into Draw', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      expect(await page.isChecked(byTest('run-backend-simulator'))).toBe(true);
      expect(await page.isChecked(byTest('run-task-masbench'))).toBe(true);
      await page.waitForSelector(byTest('run-backend-default'));
      expect(await page.locator(byTest('run-preview')).getAttribute('data-agents')).toBe('0');

      await page.check(byTest('run-design-paste'));
      await page.click('text=Insert an example');
      await page.waitForSelector(byTest('design-valid'));
      await page.waitForSelector(`${byTest('run-preview')}[data-agents="2"][data-edges="1"]`);
      await page.waitForFunction(
        () => document.querySelectorAll('[data-testid="run-preview"] .react-flow__node').length === 2,
      );
      // Nothing running yet: Run is enabled with the simulator and the generated task.
      expect(await page.isEnabled(byTest('run-start'))).toBe(true);

      await page.check(byTest('run-design-draw'));
      await page.waitForSelector(byTest('run-paste-carried'));
      expect(await page.locator(byTest('run-paste-carried')).innerText()).toContain('2 agents, 1 edge');
      await page.waitForSelector(byTest('design-valid'));
      expect(await page.locator(byTest('design-valid')).innerText()).toContain('2 agents · 1 edge');
      expect(await page.locator(`${byTest('run-preview')}`).getAttribute('data-agents')).toBe('2');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('applies the task cell’s half-typed number rule: text as typed, task unchanged until valid', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      const value = page.locator(byTest('run-bench-value'));
      await page.waitForSelector(byTest('run-bench-task'));
      const id = async (): Promise<string> =>
        ((await page.locator(byTest('run-bench-task')).innerText()).split(' · ')[0] ?? '').trim();
      expect(await id()).toBe('masbench-depth-3-1');
      // On the way to "12": "1" is below the range. The field shows it, the task stays depth 3.
      await value.fill('1');
      expect(await value.inputValue()).toBe('1');
      expect(await page.locator(byTest('run-bench-value-note')).innerText()).toBe(
        'Value: a whole number from 2 to 12; the task keeps 3.',
      );
      expect(await id()).toBe('masbench-depth-3-1');
      expect(await page.locator('[role="alert"]').count()).toBe(0);
      await value.fill('12');
      await page.locator(byTest('run-bench-value-note')).waitFor({ state: 'detached' });
      expect(await id()).toBe('masbench-depth-12-1');
      // Cleared and left: the field shows the task's value again.
      await value.fill('');
      expect(await id()).toBe('masbench-depth-12-1');
      await page.locator(byTest('run-bench-seed')).click();
      expect(await value.inputValue()).toBe('12');
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('keeps the trace picker in its column, clear of the final answer, and titles runs apart', async () => {
    const { page, close, errors } = await openRunPage();
    try {
      const first = await runExampleDesign(page, 1);
      expect(first).toBe(
        'Run · depth 3 (seed 1) · design of “Parallel branches: two independent…” (4 agents) · simulated',
      );
      // The trace page shows the answer the grader read, not the paragraph around it.
      const answer = (await page.locator(byTest('final-answer')).innerText()).split('\n')[0] ?? '';
      expect(answer).toMatch(/^\d+$/);
      expect(await page.locator(byTest('final-answer')).getAttribute('data-extracted')).toBe('true');

      const second = await runExampleDesign(page, 2);
      expect(second).not.toBe(first);
      expect(second).toContain('(seed 2)');

      // Back on the Run page with the finished run: the long option labels stay in the column.
      await page.click(byTest('nav-run'));
      await page.waitForSelector(byTest('run-final'));
      const select = await box(page, byTest('run-design-trace-select'));
      const setup = await box(page, '.run-setup');
      expect(select.x + select.width).toBeLessThanOrEqual(setup.x + setup.width + 0.5);
      for (const card of await page.locator('.run-card').all()) {
        const b = await card.boundingBox();
        expect(b && b.x + b.width).toBeLessThanOrEqual(setup.x + setup.width + 0.5);
      }
      expect(overlap(select, await box(page, byTest('run-final')))).toBe(false);
      expect(overlap(select, await box(page, '.run-view'))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  }, 120_000);
});
