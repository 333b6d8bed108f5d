import { useEffect, useRef, useState, type JSX } from 'react';
import uPlot, { type AlignedData } from 'uplot';
import {
  ABLATION_VARIANTS,
  ablationMarkdown,
  type AblationStudy,
  type CurvePoint,
} from '../../store/slices/train-share.ts';
import { useBaton } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { copyText } from '../share/clipboard.ts';
import { ITERATION_TICKS, roleColor } from './charts.ts';

/**
 * The one-click ablation study: HRPO, GRPO, REINFORCE and HRPO with one part switched off, each
 * trained from the same start on the same seeds and budget in the training worker (sequentially,
 * with progress), then the held-out table with 95% intervals over seeds and the variants' mean
 * training curves overlaid in one chart. Whatever ordering comes out is shown as it is.
 */

type Metric = Exclude<keyof CurvePoint, 'iteration'>;
const METRICS: { id: Metric; label: string }[] = [
  { id: 'reward', label: 'train reward' },
  { id: 'accuracy', label: 'train accuracy' },
  { id: 'tokens', label: 'tokens per task' },
  { id: 'agents', label: 'agents per design' },
  { id: 'kl', label: 'KL' },
];

function Overlay({ study, metric }: { study: AblationStudy; metric: Metric }): JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const len = Math.max(0, ...study.variants.map((v) => v.curve.length));
    const x = Array.from({ length: len }, (_, i) => i + 1);
    const data = [x, ...study.variants.map((v) => x.map((_, i) => v.curve[i]?.[metric] ?? null))];
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth - 8),
        height: 220,
        series: [
          { label: 'iteration' },
          ...study.variants.map((v, i) => ({
            label: v.label,
            stroke: roleColor(i),
            width: 1.5,
            value: (_u: uPlot, y: number | null) => (y === null || y === undefined ? '–' : y.toFixed(3)),
          })),
        ],
        scales: { x: { time: false } },
        axes: [{ size: 30, incrs: [...ITERATION_TICKS] }, { size: 50 }],
      },
      data as unknown as AlignedData,
      el,
    );
    el.dataset.series = String(study.variants.length);
    return () => plot.destroy();
  }, [study, metric]);
  return <div ref={host} data-testid="ablation-chart" />;
}

const f3 = (x: number): string => x.toFixed(3);
const ci = (m: { mean: number; interval: [number, number] }, f = f3): string =>
  `${f(m.mean)} [${f(m.interval[0])}, ${f(m.interval[1])}]`;

function Table({ study }: { study: AblationStudy }): JSX.Element {
  const f0 = (x: number): string => x.toFixed(0);
  return (
    <table className="table" data-testid="ablation-table">
      <thead>
        <tr>
          <th>variant</th>
          <th>seeds</th>
          <th>held-out accuracy [95% CI]</th>
          <th>reward [95% CI]</th>
          <th>tokens/task [95% CI]</th>
          <th>agents</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td>start ({study.start})</td>
          <td>–</td>
          <td>{f3(study.startScore.accuracy)}</td>
          <td>{f3(study.startScore.reward)}</td>
          <td>{f0(study.startScore.tokens)}</td>
          <td>{study.startScore.agents.toFixed(2)}</td>
        </tr>
        {study.variants.map((v) => (
          <tr key={v.variant} data-testid="ablation-row">
            <td>{v.label}</td>
            <td>{v.seeds}</td>
            <td>{ci(v.accuracy)}</td>
            <td>{ci(v.reward)}</td>
            <td>{ci(v.tokens, f0)}</td>
            <td>{v.agents.toFixed(2)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function AblationPanel(): JSX.Element {
  const settings = useBaton((s) => s.trainAblationSettings);
  const state = useBaton((s) => s.trainAblation);
  const trainStatus = useBaton((s) => s.trainStatus);
  const from = useBaton((s) => s.trainFrom);
  const a = useBaton.getState();
  const [metric, setMetric] = useState<Metric>('reward');
  const [copied, setCopied] = useState(false);
  const running = state.status === 'running';
  const trainBusy = trainStatus === 'running' || trainStatus === 'starting' || trainStatus === 'pausing';
  const p = state.status === 'running' ? state.progress : null;
  const label = (id: string): string => ABLATION_VARIANTS.find((v) => v.id === id)?.label ?? id;
  return (
    <section className="train-section" data-testid="ablation">
      <h2>Ablation study</h2>
      <p className="muted">
        Every chosen variant trained with the settings above (their seed is the first of the study&apos;s
        seeds), from {from.kind === 'random' ? `random:${from.seed}` : 'the prior'}
        {from.kind === 'checkpoint' ? ' (a study starts from a built-in policy)' : ''}, on the same seeds and
        budget, one after another in the training worker; each trained policy is scored greedily on the same
        held-out tasks.
      </p>
      <div className="train-row">
        <label>
          seeds{' '}
          <input
            className="input"
            type="number"
            min={1}
            max={20}
            value={settings.seeds}
            disabled={running}
            onChange={(e) => a.setAblationSettings({ seeds: Number(e.target.value) })}
            data-testid="ablation-seeds"
          />
        </label>
        <label>
          iterations{' '}
          <input
            className="input"
            type="number"
            min={1}
            max={1000}
            value={settings.iterations}
            disabled={running}
            onChange={(e) => a.setAblationSettings({ iterations: Number(e.target.value) })}
            data-testid="ablation-iterations"
          />
        </label>
        <label>
          held-out tasks{' '}
          <input
            className="input"
            type="number"
            min={1}
            max={2000}
            value={settings.evalN}
            disabled={running}
            onChange={(e) => a.setAblationSettings({ evalN: Number(e.target.value) })}
            data-testid="ablation-eval-n"
          />
        </label>
      </div>
      <fieldset className="train-row" disabled={running}>
        <legend>variants</legend>
        {ABLATION_VARIANTS.map((v) => (
          <label key={v.id}>
            <input
              type="checkbox"
              checked={settings.variants.includes(v.id)}
              onChange={(e) =>
                a.setAblationSettings({
                  variants: e.target.checked
                    ? [...settings.variants, v.id]
                    : settings.variants.filter((x) => x !== v.id),
                })
              }
              data-testid={`ablation-variant-${v.id}`}
            />{' '}
            {v.label}
          </label>
        ))}
      </fieldset>
      <div className="train-row">
        <button
          type="button"
          className="btn btn-primary"
          disabled={running || trainBusy}
          onClick={() => void a.startAblation()}
          data-testid="ablation-start"
        >
          Run the ablation study
        </button>
        <button
          type="button"
          className="btn"
          disabled={!running}
          onClick={() => a.cancelAblation()}
          data-testid="ablation-cancel"
        >
          Cancel
        </button>
        {running && (
          <span role="status" data-testid="ablation-progress">
            {p
              ? `${label(p.variant)} (variant ${p.variantIndex + 1}), seed ${p.seed} (${p.seedIndex + 1}), ${
                  p.iteration > p.iterations
                    ? 'trained and scored'
                    : `iteration ${p.iteration} of ${p.iterations}`
                } · run ${Math.min(p.runsDone + 1, p.runsTotal)} of ${p.runsTotal}`
              : 'scoring the start policy…'}
          </span>
        )}
      </div>
      {state.status === 'error' && (
        <ProblemAlert title="Ablation study" problems={state.problems} testId="ablation-problems" />
      )}
      {state.status === 'done' && (
        <>
          <p className="muted">
            {state.study.interval}; {state.study.evalN} held-out tasks (seed {state.study.evalSeed}),{' '}
            {state.study.iterations} iterations per run.
          </p>
          <Table study={state.study} />
          <div className="train-row">
            <label>
              curve{' '}
              <select className="input" value={metric} onChange={(e) => setMetric(e.target.value as Metric)}>
                {METRICS.map((m) => (
                  <option key={m.id} value={m.id}>
                    {m.label}
                  </option>
                ))}
              </select>
            </label>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void copyText(ablationMarkdown(state.study)).then((ok) => setCopied(ok))}
            >
              Copy as markdown
            </button>
            {copied && <span className="muted">Copied.</span>}
          </div>
          <figure className="train-chart train-chart-wide">
            <figcaption>Mean training curve over seeds, per variant</figcaption>
            <Overlay study={state.study} metric={metric} />
          </figure>
        </>
      )}
    </section>
  );
}
