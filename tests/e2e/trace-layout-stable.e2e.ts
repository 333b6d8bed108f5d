import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agent, buildExample, type AgentRun } from '../../scripts/examples/builder.ts';
import type { Agent, Design } from '../../src/core/trace.ts';
import { baseUrl, launch } from './browser.ts';

/**
 * A big trace is drawn once, on its final layout: a placeholder while the layout worker computes the
 * layout, then the graph, and from the first node drawn on no node moves and the view does not
 * shift — while the reader selects an agent, while time passes and while they step the replay — and
 * the selection stays. A watcher installed before the app loads records every node position and
 * viewport transform React Flow ever renders, and the layout state each node was first drawn in.
 */

const AGENTS = 800;

/** Agents in ≈√n columns, each fed by one or two agents of the column before, and a summariser. */
function bigTrace(n: number): string {
  const columns = Math.round(Math.sqrt(n) / 1.2);
  const per = Math.ceil((n - 1) / columns);
  const ids = Array.from({ length: n - 1 }, (_, i) => `a${i}`);
  const parents = ids.map((_, i) => {
    const col = Math.floor(i / per);
    if (col === 0) return [];
    const prev = (k: number): string => `a${(col - 1) * per + (k % per)}`;
    return [...new Set([prev(i * 7), prev(i * 13 + 3)])];
  });
  const lastColumn = ids.filter((_, i) => Math.floor(i / per) === columns - 1 || i >= (columns - 1) * per);
  const agents: Agent[] = ids.map((id, i) =>
    agent(id, 'CoTAgent', `Works on part ${i}.`, parents[i]!.map((p) => `\${${p}}`).join('\n')),
  );
  agents.push(
    agent('final', 'SummarizerAgent', 'Combines the results.', lastColumn.map((p) => `\${${p}}`).join('\n')),
  );
  const edges: Design['edges'] = [
    ...ids.flatMap((to, i) => parents[i]!.map((from) => ({ from, to }))),
    ...lastColumn.map((from) => ({ from, to: 'final' })),
  ];
  const runs: AgentRun[] = [...ids, 'final'].map((id, i) => ({
    id,
    after: id === 'final' ? lastColumn : parents[i],
    input: `Inputs of ${id}.`,
    steps: [
      {
        label: 'solve',
        user: `Solve part ${i}.`,
        output: `Part ${i} is \\boxed{${i}}.`,
        promptTokens: 50,
        completionTokens: 20,
        latencyMs: 300,
      },
    ],
    output: `Result of ${id}`,
  }));
  const trace = buildExample({
    id: 'e2e-layout-stable',
    title: `${n}-agent layered DAG`,
    createdAt: '2026-01-15T10:00:00.000Z',
    task: { query: 'A generated task.', groundTruth: '1', source: { kind: 'custom' } },
    designer: { kind: 'manual' },
    design: { dom: 'high', agents, edges },
    runs,
    finalAnswer: '1',
    answerAgent: 'final',
    correct: true,
    tags: ['e2e'],
  });
  return JSON.stringify(trace);
}

/** Runs in the page before the app: records node moves, viewport changes and the layout state. */
function installWatcher(): void {
  interface Watch {
    seen: Map<string, string>;
    moves: { id: string; from: string; to: string }[];
    viewports: string[];
    pending: string[];
    /** `data-layout-pending` of the graph when each node was first drawn. */
    drawnWhile: string[];
    placeholder: boolean;
  }
  const watch: Watch = {
    seen: new Map(),
    moves: [],
    viewports: [],
    pending: [],
    drawnWhile: [],
    placeholder: false,
  };
  (window as unknown as { __layoutWatch: Watch }).__layoutWatch = watch;
  const look = (el: Element): void => {
    if (!(el instanceof HTMLElement)) return;
    if (el.classList.contains('react-flow__node')) {
      const id = el.getAttribute('data-id') ?? '';
      const t = el.style.transform;
      const first = watch.seen.get(id);
      if (first === undefined) {
        watch.seen.set(id, t);
        const graph = document.querySelector('[data-testid="graph"]');
        const p = graph?.getAttribute('data-layout-pending') ?? 'none';
        if (!watch.drawnWhile.includes(p)) watch.drawnWhile.push(p);
      } else if (first !== t) watch.moves.push({ id, from: first, to: t });
    } else if (el.classList.contains('react-flow__viewport')) {
      const t = el.style.transform;
      if (watch.viewports[watch.viewports.length - 1] !== t) watch.viewports.push(t);
    } else if (el.getAttribute('data-testid') === 'graph') {
      const p = el.getAttribute('data-layout-pending');
      if (p !== null && watch.pending[watch.pending.length - 1] !== p) watch.pending.push(p);
    } else if (el.getAttribute('data-testid') === 'graph-placeholder') {
      watch.placeholder = true;
    }
  };
  new MutationObserver((records) => {
    for (const r of records) {
      look(r.target as Element);
      for (const n of r.addedNodes) {
        if (!(n instanceof HTMLElement)) continue;
        look(n);
        n.querySelectorAll(
          '.react-flow__node, .react-flow__viewport, [data-testid="graph"], [data-testid="graph-placeholder"]',
        ).forEach(look);
      }
    }
  }).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['style', 'data-layout-pending'],
  });
}

interface WatchSummary {
  seen: number;
  moves: unknown[];
  viewports: string[];
  pending: string[];
  drawnWhile: string[];
  placeholder: boolean;
}

const readWatch = (): WatchSummary => {
  const w = (window as unknown as { __layoutWatch: WatchSummary & { seen: Map<string, string> } })
    .__layoutWatch;
  return { ...w, seen: w.seen.size };
};

let browser: Browser;
let dir: string;
beforeAll(async () => {
  browser = await launch();
  dir = mkdtempSync(join(tmpdir(), 'baton-layout-'));
});
afterAll(async () => {
  await browser?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('trace layout', () => {
  it(`draws ${AGENTS} agents once, on the layout worker's final layout: nothing moves afterwards`, async () => {
    const file = join(dir, 'big.json');
    writeFileSync(file, bigTrace(AGENTS));
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    await context.addInitScript(installWatcher);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(baseUrl());
      await page.locator('[data-testid="file-input"]').setInputFiles(file);
      await page.locator('[data-testid="agent-node"]').first().waitFor();

      // The graph came from the worker, after a placeholder, and no node was drawn before it.
      await page.waitForSelector(
        '[data-testid="graph"][data-layout-pending="false"][data-layout-source="worker"]',
        {
          timeout: 1000,
        },
      );
      const atFirstDraw = await page.evaluate(readWatch);
      expect(atFirstDraw.placeholder).toBe(true);
      expect(atFirstDraw.pending).toEqual(['true', 'false']);
      expect(atFirstDraw.drawnWhile).toEqual(['false']);

      // Select an agent on screen right away.
      const id = await page.evaluate(() => {
        for (const el of document.querySelectorAll('.react-flow__node')) {
          const r = el.getBoundingClientRect();
          const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
          if (hit && el.contains(hit)) return el.getAttribute('data-id');
        }
        return null;
      });
      expect(id).not.toBeNull();
      const node = page.locator(`.react-flow__node[data-id="${id}"]`);
      const box = await node.boundingBox();
      await node.click();
      await page.waitForSelector(`[data-testid="inspector"][data-agent-id="${id}"]`);

      // Time passes (anything still on its way would land), and the reader steps the replay back
      // and forth: statuses change, positions must not.
      await page.waitForTimeout(1500);
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowLeft');
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('End');
      await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));

      const watch = await page.evaluate(readWatch);
      expect(watch.pending).toEqual(['true', 'false']);
      expect(watch.seen).toBeGreaterThan(5);
      expect(watch.moves).toEqual([]);
      expect(watch.viewports.filter((t) => t !== '')).toHaveLength(1);
      expect(await node.boundingBox()).toEqual(box);
      await page.waitForSelector(`[data-testid="inspector"][data-agent-id="${id}"]`);
      expect(await node.locator('[data-testid="agent-node"]').getAttribute('class')).toContain('selected');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
