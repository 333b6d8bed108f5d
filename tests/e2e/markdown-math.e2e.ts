import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, openPage } from './browser.ts';

/**
 * Maths in rendered text looks like KaTeX means it to: `\boxed{42}` at the end of a model's output
 * is a box drawn all round the answer in the inspector; the task panel shows the answer read out of
 * it, 42.
 */

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const ANSWER = 'So $6 \\cdot 7 = \\boxed{42}$.\n\n$$\n\\boxed{42}\n$$';

/** A one-agent trace whose call output, agent output and final answer all end in `\boxed{42}`. */
const trace = {
  format: 'baton.trace/1',
  id: 'e2e-boxed',
  title: 'Boxed answer',
  createdAt: '2026-01-15T10:00:00.000Z',
  task: { query: 'What is $6 \\cdot 7$?', groundTruth: '42', source: { kind: 'custom' } },
  designer: { kind: 'imported', tool: 'e2e' },
  construction: [],
  design: {
    dom: 'low',
    agents: [{ id: 'solver', type: 'CoTAgent', description: 'Solves it.', input: '', params: {} }],
    edges: [],
  },
  execution: {
    backend: { kind: 'simulated', seed: 1 },
    status: 'completed',
    startedAt: '2026-01-15T10:00:00.000Z',
    events: [
      { type: 'agent.start', t: 1, agentId: 'solver', input: 'What is $6 \\cdot 7$?' },
      {
        type: 'llm.call',
        t: 2,
        agentId: 'solver',
        callId: 'solver#1',
        model: 'sim',
        messages: [{ role: 'user', content: 'What is $6 \\cdot 7$?' }],
        output: ANSWER,
        promptTokens: 10,
        completionTokens: 10,
        latencyMs: 100,
        costUsd: 0,
      },
      { type: 'agent.end', t: 103, agentId: 'solver', output: ANSWER },
      { type: 'run.end', t: 104, status: 'completed' },
    ],
  },
  result: { finalAnswer: ANSWER, answerAgent: 'solver', correct: true },
  totals: {
    promptTokens: 10,
    completionTokens: 10,
    costUsd: 0,
    llmCalls: 1,
    wallMs: 103,
    criticalPathMs: 102,
  },
  tags: ['e2e'],
};

interface BoxReport {
  where: string;
  sides: { side: string; width: number; style: string }[];
  box: { left: number; right: number; width: number; height: number };
  content: { left: number; right: number; width: number };
}

/** Every `\boxed` on the page: its computed borders, and where the box sits around its content. */
const measureBoxes = (page: Page): Promise<BoxReport[]> =>
  page.$$eval('.katex .fbox', (boxes) =>
    boxes.map((el) => {
      const cs = getComputedStyle(el);
      const r = el.getBoundingClientRect();
      // KaTeX stacks the boxed content (.boxpad) and the frame (.fbox) in one vlist.
      const content = el.closest('.vlist')?.querySelector('.boxpad')?.getBoundingClientRect();
      return {
        where:
          el.closest('[data-testid="inspector"], [data-testid="task-panel"]')?.getAttribute('data-testid') ??
          '?',
        sides: ['top', 'right', 'bottom', 'left'].map((side) => ({
          side,
          width: parseFloat(cs.getPropertyValue(`border-${side}-width`)),
          style: cs.getPropertyValue(`border-${side}-style`),
        })),
        box: { left: r.left, right: r.right, width: r.width, height: r.height },
        content: { left: content?.left ?? NaN, right: content?.right ?? NaN, width: content?.width ?? NaN },
      };
    }),
  );

describe('maths in markdown', () => {
  it('draws \\boxed{42} as a box on all four sides around the answer', async () => {
    const { page, context, errors } = await openPage(browser, '');
    try {
      await page.locator('[data-testid="file-input"]').setInputFiles({
        name: 'boxed.json',
        mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(trace)),
      });
      await page.locator('[data-testid="trace-page"]').waitFor();
      await page.locator('[data-testid="agent-node"][data-agent-id="solver"]').click();
      await page.waitForSelector(
        '[data-testid="inspector"][data-agent-id="solver"] [data-testid="llm-call"]',
      );
      // Call output and agent output, inline and display each.
      await page.waitForFunction(() => document.querySelectorAll('.katex .fbox').length >= 4);

      const boxes = await measureBoxes(page);
      expect(boxes.length).toBeGreaterThanOrEqual(4);
      expect(new Set(boxes.map((b) => b.where))).toEqual(new Set(['inspector']));
      // The task panel's final answer is the answer the grader read out of the output.
      const final = page.locator('[data-testid="final-answer"]');
      expect(await final.getAttribute('data-extracted')).toBe('true');
      expect((await final.innerText()).split('\n')[0]?.trim()).toBe('42');
      for (const b of boxes) {
        for (const s of b.sides) {
          expect(s.width, `${b.where}: border-${s.side}-width`).toBeGreaterThan(0);
          expect(s.style, `${b.where}: border-${s.side}-style`).not.toBe('none');
        }
        // Borders alone are not a box: with KaTeX's layout rules missing the frame collapses to
        // its two side borders (2px wide) left of the answer, which reads as a lone left border.
        expect(b.box.width, `${b.where}: box width`).toBeGreaterThan(10);
        expect(b.box.height, `${b.where}: box height`).toBeGreaterThan(10);
        expect(b.box.left, `${b.where}: box left`).toBeLessThanOrEqual(b.content.left + 0.5);
        expect(b.box.right, `${b.where}: box right`).toBeGreaterThanOrEqual(b.content.right - 0.5);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
