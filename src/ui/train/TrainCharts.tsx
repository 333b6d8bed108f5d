/**
 * The live training charts, drawn with uPlot (canvas; docs/train-page.md says why). The charts are
 * built once and never re-rendered by React: a store subscription notices each new ring-buffer row
 * and schedules one redraw on the next animation frame, however many rows arrived since, so the
 * page keeps up with any update rate; the ring's columns are read once per redraw for all charts.
 * Each line is drawn raw (faint) and smoothed by the EMA of the smoothing slider (`smooth.ts`), as
 * W&B does; held-out points are drawn as they are. uPlot's legend shows every series' value under
 * the cursor.
 */
import { useEffect, useRef, useState, type JSX } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { columns, roleColumns, type MetricRing, type Series } from '../../store/slices/train-ring.ts';
import { useBaton } from '../../store/store.ts';
import { CHARTS, ITERATION_TICKS, roleColor, stack, type ChartSpec } from './charts.ts';
import { ema } from './smooth.ts';

const HEIGHT = 170;
const DEFAULT_SMOOTHING = 0.6;
const MIN_REDRAW_MS = 250;

type Columns = Record<Series, (number | null)[]>;

export interface Drawn<C = Columns, R = MetricRing> {
  el: HTMLDivElement;
  plot: uPlot;
  /** Redraws from the columns (`ring.length` rows). */
  update(ring: R, c: C, smoothing: number): void;
}

const fmt = (digits: number) => (_u: uPlot, v: number | null) =>
  v === null || v === undefined ? '–' : v.toFixed(digits);

/** A line chart of `spec` (also drawn by the orchestrator mode's charts, with its own series). */
export function lineChart<S extends string = Series>(
  el: HTMLDivElement,
  spec: ChartSpec<S>,
  width: number,
): Drawn<Record<S | 'iteration', (number | null)[]>, { length: number }> {
  const series: Options['series'] = [{ label: 'iteration' }];
  const bands: NonNullable<Options['bands']> = [];
  for (const l of spec.lines)
    if (l.points)
      series.push({
        label: l.label,
        stroke: l.color,
        width: 1.5,
        value: fmt(spec.digits),
        paths: () => null,
        points: { show: true, size: 7, fill: l.color },
      });
    else
      series.push(
        {
          label: `${l.label} (raw)`,
          stroke: `${l.color}44`,
          width: 1,
          value: fmt(spec.digits),
          points: { show: false },
        },
        { label: l.label, stroke: l.color, width: 1.5, value: fmt(spec.digits), points: { show: false } },
      );
  if (spec.band) {
    const c = spec.lines[0]?.color ?? '#2563eb';
    const lo = series.length;
    series.push(
      { label: '− std', stroke: `${c}33`, width: 1, value: fmt(spec.digits), points: { show: false } },
      { label: '+ std', stroke: `${c}33`, width: 1, value: fmt(spec.digits), points: { show: false } },
    );
    bands.push({ series: [lo + 1, lo], fill: `${c}1a` });
  }
  const opts: Options = {
    width,
    height: HEIGHT,
    series,
    bands,
    scales: { x: { time: false }, ...(spec.yRange ? { y: { range: spec.yRange } } : {}) },
    axes: [{ size: 30, incrs: [...ITERATION_TICKS] }, { size: 50 }],
    legend: { live: true },
  };
  const empty: AlignedData = series.map(() => []) as unknown as AlignedData;
  const plot = new uPlot(opts, empty, el);
  return {
    el,
    plot,
    update(ring, c, smoothing) {
      const data: (number | null)[][] = [c.iteration];
      let smoothedLast: number | null | undefined;
      let rawLast: number | null | undefined;
      for (const l of spec.lines) {
        const raw = c[l.series];
        if (l.points) {
          data.push(raw);
          el.dataset.heldout = String(raw.filter((v) => v !== null).length);
          continue;
        }
        const smooth = ema(raw, smoothing);
        data.push(raw, smooth);
        if (rawLast === undefined) {
          rawLast = raw[ring.length - 1];
          smoothedLast = smooth[ring.length - 1];
        }
      }
      if (spec.band) {
        const first = spec.lines[0];
        const mean = first ? c[first.series] : [];
        const sd = c[spec.band];
        data.push(
          mean.map((m, i) => (m === null ? null : m - (sd[i] ?? 0))),
          mean.map((m, i) => (m === null ? null : m + (sd[i] ?? 0))),
        );
      }
      plot.setData(data as unknown as AlignedData);
      el.dataset.points = String(ring.length);
      el.dataset.last = rawLast === null || rawLast === undefined ? '' : String(rawLast);
      el.dataset.smoothedLast =
        smoothedLast === null || smoothedLast === undefined ? '' : String(smoothedLast);
    },
  };
}

function roleChart(el: HTMLDivElement, width: number): Drawn {
  let names: string[] = [];
  let plot: uPlot | null = null;
  let raw: number[][] = [];
  const build = (): uPlot => {
    plot?.destroy();
    const series: Options['series'] = [{ label: 'iteration' }];
    const bands: NonNullable<Options['bands']> = [];
    names.forEach((n, i) => {
      series.push({
        label: n,
        stroke: roleColor(i),
        width: 1,
        fill: i === 0 ? `${roleColor(i)}66` : undefined,
        points: { show: false },
        // The legend shows the role's own share, not the stacked height.
        value: (_u, _v, si, di) => (di === null ? '–' : (raw[si - 1]?.[di] ?? 0).toFixed(2)),
      });
      if (i > 0) bands.push({ series: [i + 1, i], fill: `${roleColor(i)}66` });
    });
    return new uPlot(
      {
        width,
        height: HEIGHT + 30,
        series,
        bands,
        scales: { x: { time: false }, y: { range: [0, 1] } },
        axes: [{ size: 30, incrs: [...ITERATION_TICKS] }, { size: 40 }],
      },
      series.map(() => []) as unknown as AlignedData,
      el,
    );
  };
  plot = build();
  return {
    el,
    get plot() {
      return plot as uPlot;
    },
    update(ring, c) {
      const roles = roleColumns(ring);
      if (ring.roleNames.join('\n') !== names.join('\n')) {
        names = [...ring.roleNames];
        plot = build();
      }
      raw = names.map((n) => roles[n] ?? []);
      const x = c.iteration;
      (plot as uPlot).setData([x, ...stack(raw)] as unknown as AlignedData);
      el.dataset.points = String(ring.length);
    },
  };
}

/** The live run's charts, or with `ring` a fixed set of curves (a shared run, drawn once). */
export function TrainCharts({ ring: fixed }: { ring?: MetricRing } = {}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const [smoothing, setSmoothing] = useState(DEFAULT_SMOOTHING);
  const weight = useRef(smoothing);
  const redraw = useRef<() => void>(() => undefined);
  useEffect(() => {
    weight.current = smoothing;
    redraw.current();
  }, [smoothing]);
  useEffect(() => {
    const root = host.current;
    if (!root) return;
    const width = (el: HTMLElement): number => Math.max(240, el.clientWidth - 8);
    const drawn: Drawn[] = [];
    for (const spec of CHARTS) {
      const el = root.querySelector<HTMLDivElement>(`[data-chart="${spec.id}"]`);
      if (el) drawn.push(lineChart(el, spec, width(el)));
    }
    const roleEl = root.querySelector<HTMLDivElement>('[data-chart="roles"]');
    if (roleEl) drawn.push(roleChart(roleEl, width(roleEl)));

    let frame = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let drawnAt = -Infinity;
    // Charts scrolled out of view are not redrawn (they are marked stale and drawn when they come
    // back): canvases nobody sees would still be painted and composited on the main thread.
    const visible = new Set<Element>();
    const stale = new Set<Drawn>(drawn);
    const draw = (): void => {
      frame = 0;
      drawnAt = performance.now();
      const ring = fixed ?? useBaton.getState().trainRing;
      let c: Columns | null = null;
      for (const d of drawn) {
        if (!visible.has(d.el)) {
          stale.add(d);
          continue;
        }
        c ??= columns(ring);
        d.update(ring, c, weight.current);
        stale.delete(d);
      }
    };
    // At most one redraw per frame, and while data streams in at most one per MIN_REDRAW_MS: ten
    // canvases repainted on every frame would keep the main thread busy for nothing a reader sees.
    const schedule = (): void => {
      if (frame !== 0 || timer !== undefined) return;
      const wait = drawnAt + MIN_REDRAW_MS - performance.now();
      if (wait <= 0) frame = requestAnimationFrame(draw);
      else
        timer = setTimeout(() => {
          timer = undefined;
          if (frame === 0) frame = requestAnimationFrame(draw);
        }, wait);
    };
    redraw.current = () => {
      for (const d of drawn) stale.add(d);
      schedule();
    };
    const seen = new IntersectionObserver((entries) => {
      let back = false;
      for (const e of entries) {
        if (e.isIntersecting) visible.add(e.target);
        else visible.delete(e.target);
        if (e.isIntersecting && drawn.some((d) => d.el === e.target && stale.has(d))) back = true;
      }
      if (back) schedule();
    });
    for (const d of drawn) seen.observe(d.el);
    const unsubscribe = fixed
      ? () => undefined
      : useBaton.subscribe((s, prev) => {
          if (s.trainRingVersion !== prev.trainRingVersion || s.trainRing !== prev.trainRing) schedule();
        });
    const resize = new ResizeObserver(() => {
      for (const d of drawn) d.plot.setSize({ width: width(d.el), height: d.plot.height });
    });
    for (const d of drawn) resize.observe(d.el);
    return () => {
      redraw.current = () => undefined;
      unsubscribe();
      seen.disconnect();
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      clearTimeout(timer);
      for (const d of drawn) d.plot.destroy();
    };
  }, [fixed]);

  return (
    <div className="train-charts" ref={host}>
      <label className="train-smoothing">
        Smoothing (EMA){' '}
        <input
          type="range"
          min={0}
          max={0.99}
          step={0.01}
          value={smoothing}
          onChange={(e) => setSmoothing(Number(e.target.value))}
          data-testid="train-smoothing"
          aria-describedby="train-smoothing-note"
        />{' '}
        <output data-testid="train-smoothing-value">{smoothing.toFixed(2)}</output>{' '}
        <span className="muted small" id="train-smoothing-note">
          faint: raw values; solid: their debiased exponential moving average (0 = raw)
        </span>
      </label>
      {CHARTS.map((c) => (
        <figure key={c.id} className="train-chart">
          <figcaption>{c.title}</figcaption>
          <div data-chart={c.id} data-testid={`train-chart-${c.id}`} data-points="0" />
        </figure>
      ))}
      <figure className="train-chart train-chart-wide">
        <figcaption>Role choices over training (share of added agents, stacked)</figcaption>
        <div data-chart="roles" data-testid="train-chart-roles" data-points="0" />
      </figure>
    </div>
  );
}
