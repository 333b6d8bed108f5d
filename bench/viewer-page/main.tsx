/**
 * The viewer benchmark page (built by bench/viewer.bench.mjs): the real TracePage, with hooks the
 * benchmark drives. `?mode=main` swaps the layout worker for one that computes the same layout on
 * the main thread, the baseline the worker is measured against.
 */
import { createRoot } from 'react-dom/client';
import { parseTraceJson } from '../../src/core/parse-trace.ts';
import { ok } from '../../src/core/result.ts';
import { layoutLayered } from '../../src/view/layout.ts';
import { setLayoutWorkerClient } from '../../src/store/services/layout.ts';
import { useBaton } from '../../src/store/store.ts';
import { TracePage } from '../../src/ui/trace/TracePage.tsx';
import '../../src/ui/styles/base.css';

export interface BenchMarks {
  /** performance.now() when `open` was called. */
  open: number;
  parsed: number;
  /** First agent node in the DOM: the graph shown, on its final layout. */
  nodes: number | null;
  /** The store waits for the layout worker from here (null: laid out at once). */
  layoutRequested: number | null;
  /** The first animation frame while the layout is still pending: the placeholder is painted. */
  placeholderFrame: number | null;
  /** The layout in the store: the worker's answer arrived (or was computed at once). */
  layoutReady: number | null;
  /** Main-thread tasks over 50 ms after `open`: [start, duration] in ms. */
  longTasks: [number, number][];
}

declare global {
  interface Window {
    __viewerBench: {
      ready: boolean;
      load(url: string): Promise<number>;
      open(): number;
      marks: BenchMarks | null;
    };
  }
}

if (new URLSearchParams(location.search).get('mode') === 'main') {
  setLayoutWorkerClient({ layout: (graph) => Promise.resolve(ok(layoutLayered(graph))), dispose: () => {} });
}

const container = document.getElementById('root') as HTMLElement;
container.style.height = '100vh';
const root = createRoot(container);
let text = '';
const longTasks: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) longTasks.push([e.startTime, e.duration]);
}).observe({ type: 'longtask', buffered: false });

window.__viewerBench = {
  ready: true,
  marks: null,
  async load(url) {
    text = await (await fetch(url)).text();
    return text.length;
  },
  open() {
    const marks: BenchMarks = {
      open: performance.now(),
      parsed: 0,
      nodes: null,
      layoutRequested: null,
      placeholderFrame: null,
      layoutReady: null,
      longTasks,
    };
    window.__viewerBench.marks = marks;
    longTasks.length = 0;
    const parsed = parseTraceJson(text);
    if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join('; '));
    marks.parsed = performance.now();
    const mo = new MutationObserver(() => {
      if (marks.nodes === null && document.querySelector('[data-testid="agent-node"]')) {
        marks.nodes = performance.now();
        mo.disconnect();
      }
    });
    mo.observe(container, { childList: true, subtree: true });
    const unsubscribe = useBaton.subscribe((s) => {
      if (s.layout.key === null) return;
      if (s.layout.pending) {
        if (marks.layoutRequested !== null) return;
        marks.layoutRequested = performance.now();
        // A layout computed within this task (the main-thread baseline) never paints the placeholder.
        requestAnimationFrame(() => {
          if (useBaton.getState().layout.pending) marks.placeholderFrame = performance.now();
        });
      } else {
        marks.layoutReady = performance.now();
        unsubscribe();
      }
    });
    root.render(<TracePage trace={parsed.value} />);
    return marks.open;
  },
};
