import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';
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

/** The smallest text a fitted graph may show, in screen px (`READABLE_PX` in GraphView.tsx). */
const READABLE_PX = 9;

/** A chain of five agents, with the types whose labels are longest. */
function chainTrace() {
  const types = ['CoTAgent', 'SCAgent', 'CEOAgent', 'ReflexionAgent', 'CoTAgent'];
  const ids = types.map((_, i) => `step-${i + 1}`);
  const events = ids.flatMap((id, i) => [
    { type: 'agent.start', t: i * 10, agentId: id, input: 'q' },
    { type: 'agent.end', t: i * 10 + 9, agentId: id, output: `${i}` },
  ]);
  return {
    format: 'baton.trace/1',
    id: 'e2e-chain',
    title: 'A chain of five agents',
    createdAt: '2026-01-15T10:00:00.000Z',
    task: { query: 'q', groundTruth: '4', source: { kind: 'custom' } },
    designer: { kind: 'imported', tool: 'e2e' },
    construction: [],
    design: {
      dom: 'high',
      agents: ids.map((id, i) => ({
        id,
        type: types[i],
        description: 'Works on the output of the agent before it, in a few careful steps.',
        input: i === 0 ? 'q' : `\${${ids[i - 1]}}`,
        params: {},
      })),
      edges: ids.slice(1).map((id, i) => ({ from: ids[i], to: id })),
    },
    execution: {
      backend: { kind: 'simulated', seed: 1 },
      status: 'completed',
      startedAt: '2026-01-15T10:00:00.000Z',
      events: [...events, { type: 'run.end', t: 50, status: 'completed' }],
    },
    result: { finalAnswer: '4', answerAgent: 'step-5', correct: true },
    totals: { promptTokens: 0, completionTokens: 0, costUsd: 0, llmCalls: 0, wallMs: 49, criticalPathMs: 49 },
    tags: ['e2e'],
  };
}

describe('trace canvas at 1440 × 900', () => {
  it('shows a chain of five agents with uncut type labels and readable text, and scrolls to the rest', async () => {
    const { page, context, errors } = await openPage(browser, '');
    try {
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.locator('[data-testid="file-input"]').setInputFiles({
        name: 'chain.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(chainTrace())),
      });
      await page.locator('[data-testid="trace-page"]').waitFor();
      await page.waitForFunction(() => document.querySelectorAll('[data-testid="agent-node"]').length >= 3);
      const zoom = async (): Promise<number> =>
        page
          .locator('.react-flow__viewport')
          .evaluate((el) => new DOMMatrix(getComputedStyle(el).transform).a);
      const fitted = await zoom();
      const texts = await page.locator('[data-testid="agent-node"]').evaluateAll((nodes) =>
        nodes.flatMap((n) =>
          [
            ...n.querySelectorAll('.agent-node-type, .agent-node-id, .agent-node-desc, .agent-node-status'),
          ].map((el) => ({
            node: n.getAttribute('data-agent-id'),
            cls: el.className,
            text: el.textContent ?? '',
            font: parseFloat(getComputedStyle(el).fontSize),
            cut: el.scrollWidth > el.clientWidth + 0.5,
          })),
        ),
      );
      expect(texts.length).toBeGreaterThan(0);
      for (const t of texts) {
        expect(t.font * fitted, `${t.node} ${t.cls}: ${t.font}px × ${fitted}`).toBeGreaterThanOrEqual(
          READABLE_PX,
        );
      }
      const labels = texts.filter((t) => t.cls === 'agent-node-type');
      expect(labels.map((t) => t.text)).toEqual(
        expect.arrayContaining(['Chain of thought', 'Self-consistency', 'CEO discussion']),
      );
      for (const t of labels) expect(t.cut, `${t.node}: "${t.text}" is cut`).toBe(false);

      // Five agents do not fit the centre column at a readable size: the view says so and scrolls.
      await page.locator('[data-testid="graph-overflow-hint"]').waitFor();
      const graph = page.locator('[data-testid="graph"]');
      // How far the last agent's right edge lies beyond the graph's (off-screen nodes are not drawn).
      const rightOf = (): Promise<number> =>
        page.evaluate(() => {
          const node = document.querySelector('.react-flow__node[data-id="step-5"]');
          const area = document.querySelector('[data-testid="graph"]');
          if (!node || !area) return Infinity;
          return node.getBoundingClientRect().right - area.getBoundingClientRect().right;
        });
      expect(await rightOf()).toBeGreaterThan(0);
      const g = await graph.boundingBox();
      await page.mouse.move((g?.x ?? 0) + (g?.width ?? 0) / 2, (g?.y ?? 0) + (g?.height ?? 0) / 2);
      for (let i = 0; i < 20 && (await rightOf()) > 0; i++) {
        await page.mouse.wheel(120, 0);
        await page.waitForTimeout(50);
      }
      expect(await rightOf()).toBeLessThanOrEqual(0);
      // Scrolling pans: the zoom stays readable.
      expect(await zoom()).toBeCloseTo(fitted, 5);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
