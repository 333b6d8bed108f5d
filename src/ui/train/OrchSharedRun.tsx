/**
 * A shared run of GRPO of the orchestrator LM (`#r=1.…` holding a `baton.orchrun/1` record),
 * read-only: the SFT model it started from, the backend, every constant of its config, the charts of
 * the Train page's orchestrator mode and their numbers, the held-out before/after evaluation, the
 * designs sampled last as mini DAGs, and why the weights are not in the link. All of it from the
 * link, shown as text.
 */
import type { JSX } from 'react';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import {
  weightsInLink,
  weightsNote,
  type OrchRunRecord,
  type OrchShared,
} from '../../store/slices/train-orch-share.ts';
import { OrchCharts } from './OrchCharts.tsx';
import { OrchCurveTable, OrchEvalTable, OrchSamples } from './OrchViews.tsx';

function ConfigTable({ record }: { record: OrchRunRecord }): JSX.Element {
  return (
    <table className="table train-eval-table" data-testid="orch-shared-config">
      <tbody>
        {Object.entries(record.config).map(([k, v]) => (
          <tr key={k} data-key={k}>
            <td className="mono">{k}</td>
            <td className="mono">{typeof v === 'object' ? JSON.stringify(v) : String(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Record({ record, linkChars }: { record: OrchRunRecord; linkChars: number }): JSX.Element {
  const m = record.model;
  const omitted = record.omitted.includes('samples')
    ? 'The sampled designs were left out to keep the link within its budget.'
    : record.omitted.includes('sample-text')
      ? 'The sampled designs’ text was left out to keep the link within its budget.'
      : null;
  return (
    <>
      <p data-testid="orch-shared-summary">
        GRPO of <strong>{m.name}</strong> for {record.iterations} iterations, seed {record.config.seed}.
      </p>
      <table className="table train-eval-table" data-testid="orch-shared-model">
        <tbody>
          <tr>
            <th scope="row">SFT model</th>
            <td className="mono">{m.name}</td>
          </tr>
          <tr>
            <th scope="row">parameters</th>
            <td className="mono" data-testid="orch-shared-params">
              {m.params.toLocaleString('en-US')}
            </td>
          </tr>
          <tr>
            <th scope="row">format</th>
            <td>
              ONNX, fp32 weights (models/{m.id}/onnx/model.onnx), {m.positions} positions
              {m.promptFormat ? `, design text format ${m.promptFormat}` : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">backend</th>
            <td data-testid="orch-shared-backend">
              {record.backend ? `${record.backend.backend}: ${record.backend.reason}` : 'not recorded'}
            </td>
          </tr>
        </tbody>
      </table>
      <div className="alert alert-warn" role="status" data-testid="orch-shared-weights">
        {weightsNote(weightsInLink(m.params, linkChars))} Ask for the model folder instead: the browser that
        trained the run exports it with “Use in Orchestrate”.
      </div>
      {omitted && <p className="muted">{omitted}</p>}
      <OrchCharts curves={record.curves} />
      <OrchCurveTable curves={record.curves} />
      <section className="train-section">
        <h2>Before / after on held-out tasks (as recorded)</h2>
        {record.evaluation ? (
          <OrchEvalTable e={record.evaluation} />
        ) : (
          <p className="muted" data-testid="orch-shared-no-eval">
            The run was shared before a held-out evaluation.
          </p>
        )}
      </section>
      <OrchSamples sampled={record.sampled} iteration={record.sampledAt} />
      <section className="train-section">
        <h2>Config (every constant of the run)</h2>
        <ConfigTable record={record} />
      </section>
    </>
  );
}

export function OrchSharedRun({ shared }: { shared: Exclude<OrchShared, { other: true }> }): JSX.Element {
  return (
    <section className="page train-page" data-testid="orch-shared-page">
      <header className="train-head">
        <h1>
          Shared orchestrator training run{' '}
          <span className="badge" data-testid="shared-run-readonly">
            read-only
          </span>
        </h1>
        <p className="muted">
          GRPO of the orchestrator LM from a link: nothing here changes your own run. Designs were run by{' '}
          <strong>simulated sub-agents</strong> (a simulation, not LLM calls).
        </p>
      </header>
      {'problems' in shared ? (
        <ProblemAlert
          title="This link cannot be opened"
          problems={shared.problems}
          testId="shared-run-problems"
        />
      ) : (
        <Record record={shared.record} linkChars={location.href.length} />
      )}
    </section>
  );
}
