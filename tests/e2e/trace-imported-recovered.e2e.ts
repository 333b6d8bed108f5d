import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importText } from '../../src/importers/index.ts';
import { launch, openPage } from './browser.ts';
import { readout, waitForNodes } from './trace-open.ts';

/**
 * MAS-Orchestra slides whose page published the design only as a diagram: the design recovered
 * from the orchestrator's text on the canvas with its "recovered" badge, the diagram beside it
 * (zoom, pan, full size), "design not recorded (diagram only)" where nothing could be recovered,
 * and every importer note in the banner and on the trace page.
 */

const NAME = 'qwen2.5_7b_oss_20b_high_depth3.diagram-only.json';
const FILE = resolve('tests/fixtures/importers', NAME);

/** The trace ids the app gives the fixture's slides, row by row (the importer is deterministic). */
function idsByRow(): string[] {
  const outcome = importText(readFileSync(FILE, 'utf8'), NAME);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.items.map((i) => (i.result.ok ? i.result.value.id : ''));
}

/** How many warnings the importer gives the fixture, over all its slides (what the CLI prints). */
function warningCount(): number {
  const outcome = importText(readFileSync(FILE, 'utf8'), NAME);
  if (!outcome.ok) throw new Error(outcome.error.message);
  return outcome.items.reduce((n, i) => n + (i.result.ok ? i.result.warnings.length : 0), 0);
}

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const box = async (
  page: Page,
  selector: string,
): Promise<{ x: number; y: number; width: number; height: number }> => {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} is not visible`);
  return b;
};

async function openTrace(page: Page, id: string): Promise<void> {
  await page.evaluate((target) => {
    location.hash = `#/trace/${target}`;
  }, id);
  await page.locator(`[data-testid=trace-page]`).waitFor();
  await page.waitForFunction((target) => document.title !== '' && location.hash === `#/trace/${target}`, id);
}

describe('a diagram-only MAS-Orchestra slide', () => {
  it('shows the recovered design, its badge, the diagram full size, and every importer note', async () => {
    const ids = idsByRow();
    const { context, page, errors } = await openPage(browser, '');
    try {
      await page.setInputFiles('[data-testid=file-input]', FILE);
      await page.locator('[data-testid=import-count][data-count="5"]').waitFor();

      // The banner: every note, grouped; the page/code model disagreement among them.
      const banner = page.locator('[data-testid=import-notes]');
      expect(warningCount()).toBe(10);
      expect(Number(await banner.getAttribute('data-count'))).toBe(warningCount());
      const bannerText = await banner.innerText();
      expect(bannerText).toContain("the code calls model 'gpt-oss-120b'");
      expect(bannerText).toContain('recovered from the orchestrator');
      expect(bannerText).toContain('the design is not recorded');

      // Row 0: the three agents of the last draft, with two edges, marked as recovered.
      await openTrace(page, ids[0] as string);
      await waitForNodes(page, 3);
      const nodeIds = await page
        .locator('[data-testid=agent-node]')
        .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-agent-id')).sort());
      expect(nodeIds).toEqual(['Check_Answer', 'Read_Facts', 'Solve_Cafe']);
      expect(await page.locator('[data-testid=trace-agent-count]').innerText()).toBe('3 agents');
      await page.locator('[data-testid=trace-recovered-badge]').waitFor();
      await page.locator('[data-testid=canvas-recovered] [data-testid=recovered-badge]').waitFor();
      expect(await page.locator('[data-testid=trace-design-note]').innerText()).toContain(
        "Design recovered from the orchestrator's text, not executed",
      );
      expect(await page.locator('[data-testid=trace-page]').innerText()).not.toContain('No agents');

      // The diagram sits beside the graph in the main area, not in the left column.
      await page.locator('[data-testid=diagram-image]').waitFor();
      await page.waitForFunction(
        () => (document.querySelector('[data-testid=diagram-image]') as HTMLImageElement | null)?.complete,
      );
      // At 1400 px the main area (between the task panel and the inspector) is narrow: the diagram
      // goes under the graph, which keeps the full width (every node drawn, above). On a wider
      // screen the two sit side by side.
      const narrowFlow = await box(page, '.graph-flow');
      const narrowViewer = await box(page, '[data-testid=diagram-viewer]');
      expect(narrowViewer.y).toBeGreaterThanOrEqual(narrowFlow.y + narrowFlow.height - 2);
      expect(narrowViewer.width).toBeGreaterThan(narrowFlow.width - 4);
      await page.setViewportSize({ width: 1920, height: 1000 });
      await page.waitForFunction(() => {
        const f = document.querySelector('.graph-flow')?.getBoundingClientRect();
        const v = document.querySelector('[data-testid=diagram-viewer]')?.getBoundingClientRect();
        return f !== undefined && v !== undefined && v.x >= f.x + f.width - 2;
      });
      const flow = await box(page, '.graph-flow');
      const viewer = await box(page, '[data-testid=diagram-viewer]');
      expect(viewer.x).toBeGreaterThanOrEqual(flow.x + flow.width - 2);
      expect(viewer.width).toBeGreaterThan(240);
      expect(await page.locator('[data-testid=task-panel] img').count()).toBe(0);

      // Hide folds it to a strip so the graph gets the width; it comes back beside the graph.
      const canvas = await box(page, '.graph-canvas');
      await page.locator('[data-testid=diagram-hide]').click();
      await page.locator('[data-testid=diagram-viewer][data-hidden=true]').waitFor();
      expect((await box(page, '.graph-flow')).width).toBeGreaterThan(canvas.width - 60);
      await page.locator('[data-testid=diagram-show]').click();
      await page.locator('[data-testid=diagram-frame]').waitFor();

      // Full size: the diagram takes the whole main area; 1:1 shows it at its own pixels.
      await page.locator('[data-testid=diagram-expand]').click();
      await page.locator('[data-testid=diagram-viewer][data-expanded=true]').waitFor();
      const full = await box(page, '[data-testid=diagram-viewer]');
      expect(full.width).toBeGreaterThan(canvas.width - 4);
      await page.locator('[data-testid=diagram-actual]').click();
      await page.locator('[data-testid=diagram-frame][data-scale="1.000"]').waitFor();
      expect((await box(page, '[data-testid=diagram-image]')).width).toBeCloseTo(360, 0);
      // Zoom with a button and with the wheel, pan by dragging.
      await page.locator('[data-testid=diagram-zoom-in]').click();
      await page.locator('[data-testid=diagram-frame][data-scale="1.250"]').waitFor();
      const frame = await box(page, '[data-testid=diagram-frame]');
      await page.mouse.move(frame.x + frame.width / 2, frame.y + frame.height / 2);
      await page.mouse.wheel(0, -100);
      await page.locator('[data-testid=diagram-frame][data-scale="1.563"]').waitFor();
      const before = await box(page, '[data-testid=diagram-image]');
      await page.mouse.down();
      await page.mouse.move(frame.x + frame.width / 2 + 80, frame.y + frame.height / 2 + 30, { steps: 4 });
      await page.mouse.up();
      const after = await box(page, '[data-testid=diagram-image]');
      expect(after.x - before.x).toBeCloseTo(80, 0);
      expect(after.y - before.y).toBeCloseTo(30, 0);
      // With the diagram focused, the arrow keys pan it and leave the replay where it is.
      const position = await readout(page);
      await page.locator('[data-testid=diagram-frame]').focus();
      await page.keyboard.press('ArrowLeft');
      expect((await box(page, '[data-testid=diagram-image]')).x - after.x).toBeCloseTo(40, 0);
      expect(await readout(page)).toBe(position);
      await page.locator('[data-testid=diagram-expand]').click();
      await page.locator('[data-testid=diagram-viewer][data-expanded=false]').waitFor();

      // Row 3: nothing to recover, so no agents are claimed and none are denied.
      await openTrace(page, ids[3] as string);
      await page.locator('[data-testid=graph-empty][data-design=diagram-only]').waitFor();
      expect(await page.locator('[data-testid=trace-agent-count]').innerText()).toBe(
        'design not recorded (diagram only)',
      );
      const pageText = await page.locator('.trace-frame').innerText();
      expect(pageText).not.toMatch(/0 agents|No agents|nothing was delegated/);
      expect(await page.locator('[data-testid=trace-recovered-badge]').count()).toBe(0);
      // It publishes no code, and the one slide of the file that does calls another model.
      expect(await page.locator('[data-testid=trace-disagreement]').innerText()).toBe(
        "sub-agent model: the page says gpt-oss-20b, the other slides' code calls gpt-oss-120b",
      );
      await page.locator('[data-testid=diagram-viewer]').waitFor();

      // Row 4: the header says where the page and the code disagree; the notes list says it too.
      await openTrace(page, ids[4] as string);
      expect(await page.locator('[data-testid=trace-disagreement]').innerText()).toBe(
        'sub-agent model: the page says gpt-oss-20b, the code calls gpt-oss-120b',
      );
      expect(await page.locator('[data-testid=trace-import-notes]').innerText()).toContain(
        "The page name says the sub-agents ran on gpt-oss-20b, but the code calls model 'gpt-oss-120b'.",
      );
      expect(await page.locator('[data-testid=designer]').innerText()).toContain(
        'page says gpt-oss-20b; code calls gpt-oss-120b',
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
