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
const trace = traceWith(ANSWER);

/** A one-agent trace whose call output, agent output and final answer are `answer`. */
function traceWith(answer: string, id = 'e2e-boxed') {
  return {
    format: 'baton.trace/1',
    id,
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
          output: answer,
          promptTokens: 10,
          completionTokens: 10,
          latencyMs: 100,
          costUsd: 0,
        },
        { type: 'agent.end', t: 103, agentId: 'solver', output: answer },
        { type: 'run.end', t: 104, status: 'completed' },
      ],
    },
    result: { finalAnswer: answer, answerAgent: 'solver', correct: true },
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
}

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

/** Imports `t` through the file input and opens its solver in the inspector. */
async function openSolver(page: Page, t: ReturnType<typeof traceWith>): Promise<void> {
  await page.locator('[data-testid="file-input"]').setInputFiles({
    name: `${t.id}.json`,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(t)),
  });
  await page.locator('[data-testid="trace-page"]').waitFor();
  await page.locator('[data-testid="agent-node"][data-agent-id="solver"]').click();
  await page.waitForSelector('[data-testid="inspector"][data-agent-id="solver"] [data-testid="llm-call"]');
}

/** MAS-Orchestra outputs write maths in all of these; a simulator output ends in a bare `\boxed`. */
const DELIMITERS = [
  'Inline \\(x^2 + 1\\) and $y$.',
  '',
  'Display:',
  '\\[',
  '\\frac{a}{b} = 2',
  '\\]',
  'and $$z$$, then',
  '',
  '$$',
  'w',
  '$$',
  '',
  'So the answer is \\boxed{42}.',
].join('\n');

describe('maths delimiters', () => {
  it('renders \\(…\\), \\[…\\], $…$, $$…$$ and a bare \\boxed{…} as maths, with no TeX left as text', async () => {
    const { page, context, errors } = await openPage(browser, '');
    try {
      await openSolver(page, traceWith(DELIMITERS, 'e2e-delimiters'));
      const output = page.locator('[data-testid="inspector"] [data-testid="llm-call"]').first();
      await output.locator('.katex').first().waitFor();
      const report = await output.evaluate((el) => {
        const md = [...el.querySelectorAll('.md')].find((m) => m.textContent?.includes('answer is'));
        if (!md) return null;
        const tex = (k: Element): string => k.querySelector('annotation')?.textContent ?? '';
        // The text a reader sees, without KaTeX's hidden MathML copy.
        const clone = md.cloneNode(true) as Element;
        clone.querySelectorAll('.katex-mathml').forEach((n) => n.remove());
        return {
          inline: [...md.querySelectorAll('.katex')].filter((k) => !k.closest('.katex-display')).map(tex),
          display: [...md.querySelectorAll('.katex-display')].map(tex),
          boxes: md.querySelectorAll('.fbox').length,
          visible: clone.textContent ?? '',
        };
      });
      expect(report).not.toBeNull();
      expect(report?.inline).toEqual(['x^2 + 1', 'y', 'z', '\\boxed{42}']);
      expect(report?.display).toEqual(['\\frac{a}{b} = 2', 'w']);
      expect(report?.boxes).toBe(1);
      for (const raw of ['\\(', '\\)', '\\[', '\\]', '\\boxed', '$', '\\frac']) {
        expect(report?.visible, `visible text holds ${raw}`).not.toContain(raw);
      }
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('keeps a full stop after inline maths on the maths line at every width', async () => {
    const { page, context, errors } = await openPage(browser, '');
    const sentence =
      'The total is $6 \\cdot 7 = 42$. The box is \\boxed{42}. Then \\(x_1 + x_2 = 3\\), so ($y$).';
    try {
      await openSolver(page, traceWith(sentence, 'e2e-punctuation'));
      const md = page.locator('[data-testid="inspector"] [data-testid="llm-call"] .md').first();
      await md.locator('.katex').first().waitFor();
      // Narrow the text column step by step; at some widths the browser would break after the maths.
      const stray = await md.evaluate((el) => {
        const box = el as HTMLElement;
        const found: string[] = [];
        for (let width = 90; width <= 420; width += 3) {
          box.style.width = `${width}px`;
          for (const k of box.querySelectorAll('.katex')) {
            const next = k.nextSibling ?? k.parentElement?.nextSibling ?? null;
            if (!next || next.nodeType !== Node.TEXT_NODE) continue;
            const text = next.textContent ?? '';
            if (!/^[.,;:!?)]/.test(text)) continue;
            const range = document.createRange();
            range.setStart(next, 0);
            range.setEnd(next, 1);
            const mark = range.getBoundingClientRect();
            const maths = k.getBoundingClientRect();
            // On the maths' line: the mark's middle lies within the maths' box, vertically.
            const mid = (mark.top + mark.bottom) / 2;
            if (mid < maths.top || mid > maths.bottom) found.push(`${width}px: "${text.charAt(0)}"`);
          }
        }
        box.style.width = '';
        return found;
      });
      expect(stray).toEqual([]);
      expect(await md.locator('.md-nowrap').count()).toBe(4);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
