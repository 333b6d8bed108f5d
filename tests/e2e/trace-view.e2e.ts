import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch } from './browser.ts';
import { nodeCount, readout, waitForNodes, withFixture } from './trace-open.ts';

/** The Trace page: graph, inspector, task panel and timeline on a five-agent debate trace. */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const node = (id: string): string => `.react-flow__node[data-id="${id}"] [data-testid="agent-node"]`;

describe('trace page', () => {
  it('shows the graph at the end of the run with the task, verdict and totals', async () => {
    await withFixture(browser, 'debate.json', async (page) => {
      await waitForNodes(page, 5);
      expect(await readout(page)).toBe('22 / 22 · run.end completed');
      expect(await page.locator(node('judge')).getAttribute('class')).toContain('sink');
      expect(await page.locator(node('search')).getAttribute('data-status')).toBe('failed');
      expect(await page.locator(node('debate')).getAttribute('data-status')).toBe('done');
      expect(await page.locator('[data-testid="verdict"]').getAttribute('data-verdict')).toBe('correct');
      const task = page.locator('[data-testid="task-panel"]');
      expect(await task.textContent()).toContain('Orchestrator');
      expect(await task.locator('.katex').count()).toBeGreaterThan(0);
      expect(await page.locator('[data-testid="totals"]').textContent()).toContain('LLM calls');
      expect(await page.locator('[data-testid="legend"]').textContent()).toContain('Debate');
      expect(await page.locator('[data-testid="timeline-row"]').count()).toBe(5);
    });
  });

  it('inspects an agent: calls, parameters, notes, resolved references and errors', async () => {
    await withFixture(browser, 'debate.json', async (page) => {
      await waitForNodes(page, 5);
      await page.locator(node('debate')).click();
      const inspector = page.locator('[data-testid="inspector"]');
      await page.waitForSelector('[data-testid="inspector"][data-agent-id="debate"]');
      const calls = inspector.locator('[data-testid="llm-call"]');
      expect(await calls.count()).toBe(3);
      expect(await calls.first().textContent()).toContain('Proponent round 1');
      expect(await calls.first().textContent()).toContain('gpt-4o-mini');
      expect(await inspector.textContent()).toContain('Skeptic');
      expect(await inspector.locator('[data-testid="agent-note"]').textContent()).toContain('Consensus');

      // A reference shows the producer's output and links to it.
      const ref = inspector.locator('[data-testid="input-ref"]').first();
      await ref.locator('summary code').click();
      // The output renders once the <details> toggle event has reached React.
      await ref.locator('.ref-output').waitFor();
      expect(await ref.textContent()).toContain('72');
      await ref.getByRole('button', { name: 'select solver_a' }).click();
      await page.waitForSelector('[data-testid="inspector"][data-agent-id="solver_a"]');
      expect(await inspector.textContent()).toContain('estimated');

      // Clicking a timeline bar selects that agent; the failed agent shows its placeholder.
      await page.locator('[data-testid="timeline-row"][data-agent-id="search"] .tl-bar').click();
      await page.waitForSelector('[data-testid="inspector"][data-agent-id="search"]');
      expect(await inspector.locator('[data-testid="agent-error"]').textContent()).toContain(
        '[search failed:',
      );
      expect(await nodeCount(page)).toBe(5);
    });
  });
});
