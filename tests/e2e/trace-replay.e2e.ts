import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';
import { openPage } from './browser.ts';
import { nodeCount, openFixture, readout, waitForNodes, waitForReadout, withFixture } from './trace-open.ts';

/** Replay from the keyboard: construction steps, then execution events. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const status = (page: Page, id: string): Promise<string | null> =>
  page.locator(`.react-flow__node[data-id="${id}"] [data-testid="agent-node"]`).getAttribute('data-status');

describe('trace replay', () => {
  it('steps through construction and execution with the keyboard', async () => {
    await withFixture(browser, 'construction.json', async (page) => {
      await waitForNodes(page, 3);
      expect(await readout(page)).toBe('18 / 18 · run.end completed');

      await page.keyboard.press('Home');
      await waitForReadout(page, '0 / 18 · start');
      expect(await nodeCount(page)).toBe(0);
      await page.locator('[data-testid="graph-empty"]').waitFor();

      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '2 / 18 · add Critic → a2');
      await waitForNodes(page, 2);
      expect(
        await page.locator('[data-testid="role-distribution"] .role-row.chosen').textContent(),
      ).toContain('Critic');
      expect(await page.locator('[data-testid="edge-p-label"]').first().textContent()).toContain('p=0.83');

      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '3 / 18 · delete a2');
      await waitForNodes(page, 1);

      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '5 / 18 · exit → sum');
      await waitForNodes(page, 3);

      // The first execution event starts a1.
      await page.keyboard.press('ArrowRight');
      await waitForReadout(page, '6 / 18 · agent.start a1');
      expect(await status(page, 'a1')).toBe('running');
      expect(await status(page, 'sum')).toBe('pending');

      await page.keyboard.press('ArrowLeft');
      await waitForReadout(page, '5 / 18');
      await page.keyboard.press('End');
      await waitForReadout(page, '18 / 18');
      expect(await status(page, 'sum')).toBe('done');
    });
  });

  it('plays and pauses with Space and shows the state in the inspector', async () => {
    await withFixture(browser, 'debate.json', async (page) => {
      await waitForNodes(page, 5);
      await page.locator('.react-flow__node[data-id="judge"] [data-testid="agent-node"]').click();
      await page.waitForSelector('[data-testid="inspector"][data-agent-id="judge"] [data-testid="llm-call"]');

      await page.keyboard.press('Home');
      await waitForReadout(page, '0 / 22');
      expect(await page.locator('[data-testid="inspector"] [data-testid="llm-call"]').count()).toBe(0);

      await page.locator('[data-testid="replay"] select').selectOption('16');
      await page.locator('[data-testid="trace-page"]').click({ position: { x: 5, y: 5 } });
      await page.keyboard.press('Space');
      await page.waitForFunction(() => {
        const t = document.querySelector('[data-testid="replay-position"]')?.textContent ?? '';
        return Number(t.split('/')[0]) >= 3;
      });
      await page.keyboard.press('Space');
      const paused = await readout(page);
      await page.waitForTimeout(400);
      expect(await readout(page)).toBe(paused);
      expect(await page.locator('[data-testid="replay-play"]').getAttribute('aria-pressed')).toBe('false');
    });
  });

  it('plays with Space even when a replay button has the focus, instead of pressing the button', async () => {
    await withFixture(browser, 'debate.json', async (page) => {
      await waitForNodes(page, 5);
      await page.keyboard.press('Home');
      await waitForReadout(page, '0 / 22');
      // A click leaves the focus on "Step forward": Space used to press it again.
      await page.locator('[aria-label="Step forward"]').click();
      await waitForReadout(page, '1 / 22');
      expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
        'Step forward',
      );
      await page.keyboard.press('Space');
      expect(await page.locator('[data-testid="replay-play"]').getAttribute('aria-pressed')).toBe('true');
      await page.keyboard.press('Space');
      expect(await page.locator('[data-testid="replay-play"]').getAttribute('aria-pressed')).toBe('false');
      // Typing in a text field is left alone.
      await page.locator('[aria-label="Step forward"]').focus();
      await page.evaluate(() => {
        const input = document.createElement('input');
        input.id = 'probe';
        document.querySelector('[data-testid="trace-page"]')?.append(input);
      });
      await page.locator('#probe').focus();
      await page.keyboard.press('Space');
      expect(await page.locator('#probe').inputValue()).toBe(' ');
      expect(await page.locator('[data-testid="replay-play"]').getAttribute('aria-pressed')).toBe('false');
    });
  });
});

/** Screen boxes of the graph area, the construction card and every node drawn. */
async function boxes(page: Page): Promise<{
  center: DOMRect;
  graph: DOMRect;
  card: DOMRect | null;
  nodes: { id: string; box: DOMRect }[];
}> {
  return page.evaluate(() => {
    const rect = (el: Element | null): DOMRect | null => (el ? el.getBoundingClientRect().toJSON() : null);
    return {
      center: rect(document.querySelector('.tp-center')) as DOMRect,
      graph: rect(document.querySelector('.graph-flow')) as DOMRect,
      card: rect(document.querySelector('[data-testid="construction-step"]')),
      nodes: [...document.querySelectorAll('[data-testid="agent-node"]')].map((n) => ({
        id: n.getAttribute('data-agent-id') ?? '',
        box: n.getBoundingClientRect().toJSON() as DOMRect,
      })),
    };
  });
}

const inside = (b: DOMRect, outer: DOMRect): boolean =>
  b.left >= outer.left - 0.5 &&
  b.right <= outer.right + 0.5 &&
  b.top >= outer.top - 0.5 &&
  b.bottom <= outer.bottom + 0.5;

/**
 * Every node drawn lies in the graph area; or the graph is larger than the area at the readable
 * zoom floor (0.75: 12 px node text at 9 px), and then the page says it scrolls and opens on its
 * starts, the first column in view.
 */
async function expectFitted(page: Page, where: string): Promise<void> {
  const b = await boxes(page);
  const out = b.nodes.filter((n) => !inside(n.box, b.graph));
  if (out.length === 0) return;
  expect(await page.locator('[data-testid="graph-overflow-hint"]').count(), `${where}: ${out[0]?.id}`).toBe(
    1,
  );
  const zoom = await page
    .locator('.react-flow__viewport')
    .evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a);
  expect(zoom, where).toBeCloseTo(0.75, 3);
  const left = Math.min(...b.nodes.map((n) => n.box.left));
  const first = b.nodes.filter((n) => n.box.left === left);
  for (const n of first) expect(inside(n.box, b.graph), `${where}: ${n.id}`).toBe(true);
}

const overlap = (a: DOMRect, b: DOMRect): boolean =>
  a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('construction replay on a 1440 × 900 screen', () => {
  it('keeps the construction card off the graph, every node in view (or scrolling at a readable size) and the π_edge labels readable', async () => {
    const { context, page, errors } = await openPage(browser, '#/trace/example-mashost-construction');
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      // The replay opens at its end: the readout is "<total> / <total>".
      await page.waitForFunction(() =>
        /^(\d+) \/ \1\b/.test(document.querySelector('[data-testid="replay-position"]')?.textContent ?? ''),
      );
      const readout = (await page.locator('[data-testid="replay-position"]').textContent()) ?? '';
      const total = Number(/\/ (\d+)/.exec(readout)?.[1]);
      expect(total).toBeGreaterThan(10);
      await page.keyboard.press('Home');
      for (let step = 1; step <= 4; step++) {
        await page.keyboard.press('ArrowRight');
        await waitForReadout(page, `${step} / ${total}`);
        await waitForNodes(page, step);
        const b = await boxes(page);
        expect(b.card).not.toBeNull();
        // The graph keeps the whole centre column; the card is not over it nor beside it there.
        expect(overlap(b.card!, b.center)).toBe(false);
        expect(b.graph.width).toBeGreaterThanOrEqual(b.center.width - 1);
        await expectFitted(page, `step ${step}`);
      }
      // Step 3 adds solver-3 with edge probabilities from decomposer-1 and solver-2: their labels are
      // readable at any zoom.
      await page.keyboard.press('ArrowLeft');
      await waitForReadout(page, `3 / ${total}`);
      const labels = page.locator('[data-testid="edge-p-label"]');
      expect(await labels.count()).toBe(2);
      for (const h of await labels.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height)))
        expect(h).toBeGreaterThanOrEqual(15);

      // Position 10 is in the execution: the graph is refitted to the whole area, readable; what
      // does not fit at a readable size scrolls.
      await page.keyboard.press('Home');
      for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
      await waitForReadout(page, `10 / ${total}`);
      const b = await boxes(page);
      expect(b.card).toBeNull();
      await expectFitted(page, 'position 10');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('routes the long edge a1 → final around a2 and a3, not behind them', async () => {
    const { context, page, errors } = await openFixture(browser, 'long-edge.json');
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await waitForNodes(page, 4);
      const hits = await page.evaluate(() => {
        const path = document.querySelector<SVGPathElement>(
          '.react-flow__edge[data-id="a1>final"] path.react-flow__edge-path',
        );
        if (!path) return null;
        const ctm = path.getScreenCTM();
        if (!ctm) return null;
        const others = ['a2', 'a3'].map((id) =>
          document
            .querySelector(`[data-testid="agent-node"][data-agent-id="${id}"]`)!
            .getBoundingClientRect(),
        );
        const length = path.getTotalLength();
        let hit = 0;
        for (let i = 0; i <= 200; i++) {
          const p = path.getPointAtLength((length * i) / 200).matrixTransform(ctm);
          if (others.some((r) => p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom)) hit++;
        }
        return hit;
      });
      expect(hits).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refits when the graph area grows, unless the reader has moved the view', async () => {
    const { context, page, errors } = await openPage(browser, '#/trace/example-mashost-construction');
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await waitForNodes(page, 4);
      const transform = (): Promise<string | null> =>
        page.locator('.react-flow__viewport').getAttribute('style');
      const before = await transform();
      await page.locator('.timeline-toggle').click();
      await page.waitForFunction(
        (t) => document.querySelector('.react-flow__viewport')?.getAttribute('style') !== t,
        before,
      );
      await expectFitted(page, 'after the timeline folded');
      // Once the reader zooms, a resize leaves their view alone.
      await page.locator('.react-flow__controls-zoomin').click();
      await page.waitForTimeout(300);
      const zoomed = await transform();
      await page.locator('.timeline-toggle').click();
      await page.waitForTimeout(300);
      expect(await transform()).toBe(zoomed);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the MasHost example', () => {
  it('says "correct" once on its card, and its steps agree with its title: greedy, the most probable action', async () => {
    const { page, context, errors } = await openPage(browser, '');
    try {
      const card = page.locator('[data-testid=gallery-card][data-file="mashost-construction.json"]');
      await card.waitFor();
      const words = (await card.locator('.badge, .tag').allTextContents()).map((t) => t.trim().toLowerCase());
      expect(words.filter((w) => w === 'correct' || w === 'wrong')).toHaveLength(1);
      const title = (await card.locator('[data-testid=gallery-card-open]').textContent()) ?? '';
      expect(title).toContain('greedy');
      await card.locator('[data-testid=gallery-card-open]').click();
      await page.locator('[data-testid="replay-position"]').waitFor();
      const total = Number(((await readout(page)).split('/')[1] ?? '').trim().split(' ')[0]);
      await page.keyboard.press('Home');
      await waitForReadout(page, `0 / ${total}`);
      const chips: string[] = [];
      for (let k = 1; k <= total; k++) {
        await page.keyboard.press('ArrowRight');
        await waitForReadout(page, `${k} / ${total}`);
        if ((await page.locator('.phase-badge').textContent())?.trim() !== 'construction') break;
        const chip = page.locator('[data-testid="construction-step"] [data-testid="step-choice"]');
        chips.push(((await chip.textContent()) ?? '').trim());
      }
      expect(chips.length).toBeGreaterThan(1);
      expect(new Set(chips)).toEqual(new Set(["policy's most probable action"]));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
