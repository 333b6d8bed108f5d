import { useEffect, useMemo, type JSX } from 'react';
import { navigate } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { recordRing, rerunStart, type RunRecord } from '../../store/slices/train-share.ts';
import { orchShareActions } from '../../store/slices/train-orch-share.ts';
import { useBaton } from '../../store/store.ts';
import { OrchSharedRun } from './OrchSharedRun.tsx';
import { TrainCharts } from './TrainCharts.tsx';
import './train.css';

/**
 * A shared training run (`#r=1.…`), read-only. An orchestrator LM's run has its own view
 * (OrchSharedRun.tsx); a construction policy's shows its config, the curves in the Train page's charts,
 * the evaluation table it carried, a CPU re-run compared number for number, and "Use in Build"
 * when the link carries the trained parameters. Everything from the link is shown as text.
 */

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function ConfigTable({ record }: { record: RunRecord }): JSX.Element {
  const rows = Object.entries(record.config).map(([k, v]) => [
    k,
    typeof v === 'object' ? JSON.stringify(v) : String(v),
  ]);
  return (
    <table className="table train-eval-table" data-testid="shared-run-config">
      <tbody>
        <tr>
          <th scope="row">start</th>
          <td className="mono">{record.from}</td>
        </tr>
        <tr>
          <th scope="row">iterations</th>
          <td className="mono">{record.iterations}</td>
        </tr>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            <td className="mono">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EvalTable({ record }: { record: RunRecord }): JSX.Element | null {
  if (record.evaluation.length === 0) return null;
  return (
    <section className="train-section">
      <h2>Evaluation on held-out tasks (as recorded)</h2>
      <table className="table train-eval-table" data-testid="shared-run-eval">
        <thead>
          <tr>
            <th>policy</th>
            <th>tasks</th>
            <th>accuracy [95% CI]</th>
            <th>tokens</th>
            <th>agents</th>
            <th>edges</th>
            <th>reward</th>
          </tr>
        </thead>
        <tbody>
          {record.evaluation.map((r) => (
            <tr key={r.policy}>
              <td>{r.policy}</td>
              <td>{r.n}</td>
              <td>
                {pct(r.accuracy)} [{pct(r.lo)}, {pct(r.hi)}]
              </td>
              <td>{r.tokens.toFixed(0)}</td>
              <td>{r.agents.toFixed(2)}</td>
              <td>{r.edges.toFixed(2)}</td>
              <td>{r.reward.toFixed(3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Rerun({ record }: { record: RunRecord }): JSX.Element {
  const rerun = useBaton((s) => s.trainRerun);
  const start = useBaton((s) => s.rerunSharedRun);
  const use = useBaton((s) => s.useSharedInBuild);
  const canRerun = rerunStart(record) !== null && record.iterations > 0;
  return (
    <section className="train-section">
      <h2>Reproduce</h2>
      <div className="train-row">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!canRerun || rerun.status === 'running'}
          onClick={() => void start()}
          data-testid="shared-run-rerun"
        >
          Re-run on the CPU
        </button>
        {record.checkpoint && (
          <button
            type="button"
            className="btn"
            onClick={() =>
              void use().then((name) => {
                if (name) navigate('#/build');
              })
            }
            data-testid="shared-run-use-in-build"
          >
            Use in Build
          </button>
        )}
        {!canRerun && (
          <span className="muted">
            This run started from “{record.from}”, which is not built in, so it cannot be re-run from the
            link.
          </span>
        )}
      </div>
      <p className="muted">
        The re-run trains from the recorded config and seed on the CPU backend for {record.iterations}{' '}
        iterations and compares every recorded number. Runs trained on WebGPU match only within tolerance.
      </p>
      {rerun.status === 'running' && (
        <p role="status" data-testid="shared-run-rerun-progress">
          re-running: iteration {rerun.iteration} of {rerun.iterations}…
        </p>
      )}
      {rerun.status === 'done' && (
        <div
          className={rerun.exact ? 'alert alert-ok' : 'alert alert-warn'}
          role="status"
          data-testid="shared-run-verdict"
          data-exact={String(rerun.exact)}
        >
          {rerun.text}
        </div>
      )}
      {rerun.status === 'error' && (
        <ProblemAlert title="Re-run" problems={rerun.problems} testId="shared-run-rerun-problems" />
      )}
    </section>
  );
}

export function SharedRunPage({ input }: { input: string }): JSX.Element {
  const shared = useBaton((s) => s.trainShared);
  const open = useBaton((s) => s.openTrainRunLink);
  const orch = useBaton((s) => s.orchShared);
  // An orchestrator run's record is shown by its own view; any other link by this one.
  useEffect(() => {
    if (orchShareActions(useBaton).open(input) === 'other') open(input);
  }, [input, open]);
  const record = shared && shared.input === input && 'record' in shared ? shared.record : null;
  const ring = useMemo(() => (record ? recordRing(record) : undefined), [record]);
  if (orch && orch.input === input && !('other' in orch)) return <OrchSharedRun shared={orch} />;
  return (
    <section className="page train-page" data-testid="shared-run-page">
      <header className="train-head">
        <h1>
          Shared training run{' '}
          <span className="badge" data-testid="shared-run-readonly">
            read-only
          </span>
        </h1>
        <p className="muted">
          A training run from a link: nothing here changes your own run. Tasks were executed by{' '}
          <strong>simulated sub-agents</strong> (a simulation, not LLM calls).
        </p>
      </header>
      {shared && shared.input === input && 'problems' in shared && (
        <ProblemAlert
          title="This link cannot be opened"
          problems={shared.problems}
          testId="shared-run-problems"
        />
      )}
      {record && ring && (
        <>
          <p data-testid="shared-run-summary">
            {record.config.algo} on the {record.config.preset} preset from {record.from}, {record.iterations}{' '}
            iterations, seed {record.config.seed}
            {record.checkpoint ? ', trained parameters included' : ', without the trained parameters'}.
          </p>
          <Rerun record={record} />
          <TrainCharts ring={ring} />
          <EvalTable record={record} />
          <section className="train-section">
            <h2>Config</h2>
            <ConfigTable record={record} />
          </section>
        </>
      )}
    </section>
  );
}
