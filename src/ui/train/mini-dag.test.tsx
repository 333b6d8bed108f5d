import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Agent, Design } from '../../core/trace.ts';
import { NODE_SIZE } from '../../view/layout.ts';
import { MiniDag } from './MiniDag.tsx';
import { miniLayout } from './mini-layout.ts';

const agent = (id: string): Agent => ({
  id,
  type: 'CoTAgent',
  description: id,
  input: '',
  role: 'Solver',
  params: {},
});
const chain = (n: number): Design =>
  ({
    agents: Array.from({ length: n }, (_, i) => agent(`a${i}`)),
    edges: Array.from({ length: n - 1 }, (_, i) => ({ from: `a${i}`, to: `a${i + 1}` })),
  }) as Design;

const W = NODE_SIZE.width;
const H = NODE_SIZE.height;
const overlaps = (p: { x: number; y: number }, q: { x: number; y: number }): boolean =>
  p.x < q.x + W && q.x < p.x + W && p.y < q.y + H && q.y < p.y + H;

/** Each line's ends lie on its boxes: within a band right side → left side, into a later band bottom → top. */
function checkLines(l: ReturnType<typeof miniLayout>): void {
  for (const e of l.lines) {
    const a = l.at[e.from]!;
    const b = l.at[e.to]!;
    if (l.band[e.from] === l.band[e.to]) {
      expect([e.x1, e.y1, e.x2, e.y2]).toEqual([a.x + W, a.y + H / 2, b.x, b.y + H / 2]);
      expect(e.x2).toBeGreaterThan(e.x1);
    } else {
      expect([e.x1, e.y1, e.x2, e.y2]).toEqual([a.x + W / 2, a.y + H, b.x + W / 2, b.y]);
      expect(l.band[e.to]).toBeGreaterThan(l.band[e.from]!);
      expect(e.y2).toBeGreaterThan(e.y1);
    }
  }
}

describe('the sampled design thumbnail', () => {
  it('wraps a long chain into bands, boxes larger and apart, each edge between its boxes', () => {
    for (const n of [1, 2, 3, 5, 7, 12]) {
      const d = chain(n);
      const l = miniLayout(
        d.agents.map((a) => a.id),
        d.edges,
      );
      const boxes = Object.values(l.at);
      expect(boxes).toHaveLength(n);
      for (let i = 0; i < n; i++)
        for (let j = i + 1; j < n; j++) expect(overlaps(boxes[i]!, boxes[j]!)).toBe(false);
      for (const p of boxes) {
        expect(p.x + W).toBeLessThanOrEqual(l.w);
        expect(p.y + H).toBeLessThanOrEqual(l.h);
      }
      checkLines(l);
      const scale = (x: ReturnType<typeof miniLayout>) => Math.min(240 / (x.w + 20), 160 / (x.h + 20));
      const oneBand = 1 / (n * W + (n - 1) * 70 + 20);
      if (n >= 4) {
        expect(l.bands).toBeGreaterThan(1);
        // Boxes at least twice the size they had in one band.
        expect(scale(l)).toBeGreaterThan(2 * 240 * oneBand);
      } else expect(l.bands).toBe(1);
    }
  });

  it('keeps a wide layer as one band, and draws the layout it gives', () => {
    // A Planner feeding four Solvers that a Summarizer merges: three ranks, four boxes tall.
    const agents = ['p', 's1', 's2', 's3', 's4', 'z'].map(agent);
    const edges = ['s1', 's2', 's3', 's4'].flatMap((s) => [
      { from: 'p', to: s },
      { from: s, to: 'z' },
    ]);
    const design = { agents, edges } as Design;
    const l = miniLayout(
      agents.map((a) => a.id),
      edges,
    );
    expect(l.bands).toBe(1);
    checkLines(l);
    const html = renderToStaticMarkup(<MiniDag design={design} label="sample" />);
    expect(html).toContain('data-bands="1"');
    const lines = [
      ...html.matchAll(/<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"/g),
    ].map((m) => m.slice(1).map(Number));
    expect(lines).toEqual(l.lines.map((e) => [e.x1, e.y1, e.x2, e.y2]));
    const boxes = [...html.matchAll(/translate\(([-\d.]+),([-\d.]+)\)/g)].map((m) => [
      Number(m[1]),
      Number(m[2]),
    ]);
    expect(boxes).toEqual(agents.map((a) => [l.at[a.id]!.x, l.at[a.id]!.y]));
  });
});
