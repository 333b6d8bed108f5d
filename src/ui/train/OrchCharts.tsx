/**
 * The orchestrator mode's live charts: uPlot line charts built once (the policy mode's `lineChart`),
 * redrawn at most once per frame when the run's history changes, raw values faint and their EMA
 * solid, as on the policy mode's charts.
 */
import { useEffect, useRef, type JSX } from 'react';
import 'uplot/dist/uPlot.min.css';
import { useBaton } from '../../store/store.ts';
import { ORCH_CHARTS, orchColumns, type OrchColumns } from './orch-charts.ts';
import { lineChart } from './TrainCharts.tsx';

const SMOOTHING = 0.5;

/** The live run's charts; with `curves`, those of a finished run (a shared one), drawn once. */
export function OrchCharts({ curves }: { curves?: OrchColumns } = {}): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = host.current;
    if (!root) return;
    const width = (el: HTMLElement): number => Math.max(240, el.clientWidth - 8);
    const drawn = ORCH_CHARTS.flatMap((spec) => {
      const el = root.querySelector<HTMLDivElement>(`[data-chart="${spec.id}"]`);
      return el ? [lineChart(el, spec, width(el))] : [];
    });
    let frame = 0;
    const draw = (): void => {
      frame = 0;
      const c = curves ?? orchColumns(useBaton.getState().orchTrain.history);
      for (const d of drawn) d.update({ length: c.iteration.length }, c, SMOOTHING);
    };
    const schedule = (): void => {
      if (frame === 0) frame = requestAnimationFrame(draw);
    };
    schedule();
    const unsubscribe = curves
      ? () => undefined
      : useBaton.subscribe((s, prev) => {
          if (s.orchTrain.history !== prev.orchTrain.history) schedule();
        });
    const resize = new ResizeObserver(() => {
      for (const d of drawn) d.plot.setSize({ width: width(d.el), height: d.plot.height });
    });
    for (const d of drawn) resize.observe(d.el);
    return () => {
      unsubscribe();
      resize.disconnect();
      if (frame) cancelAnimationFrame(frame);
      for (const d of drawn) d.plot.destroy();
    };
  }, [curves]);
  return (
    <div className="train-charts" ref={host}>
      {ORCH_CHARTS.map((c) => (
        <figure key={c.id} className="train-chart">
          <figcaption>{c.title}</figcaption>
          <div data-chart={c.id} data-testid={`train-chart-${c.id}`} data-points="0" />
        </figure>
      ))}
    </div>
  );
}
