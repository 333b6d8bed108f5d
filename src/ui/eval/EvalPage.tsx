import { useEffect, useState, type ChangeEvent, type JSX } from 'react';
import type { EvalRow } from '../../store/slices/eval.ts';
import { evalCheckOf, evalRemoteOf } from '../../store/slices/eval.ts';
import { runsOnPage, shippedModels } from '../../store/slices/eval-pickers.ts';
import { PROVIDER_PRESETS } from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';
import { useShallow } from 'zustand/react/shallow';
import { navigate, traceHash } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { AxisCurves, ParetoScatter } from './EvalCharts.tsx';
import { AxisPicker, MethodPicker } from './EvalPickers.tsx';
import { EvalTable, PairsTable } from './EvalTable.tsx';
import { ShareResults } from './ShareResults.tsx';
import './eval.css';

/** Traces listed for one pick; the rest are in the exports. */
const MAX_LISTED = 200;

interface Pick {
  method: string;
  axis: string | null;
  value: number | null;
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Settings(): JSX.Element {
  const d = useBaton((s) => s.evalDraft);
  const setDraft = useBaton((s) => s.setEvalDraft);
  const running = useBaton((s) => s.evalRun.status === 'running');
  const settingsBudget = useBaton((s) => s.budget);
  const provider = useBaton((s) => s.provider);
  const remote = useBaton(useShallow(evalRemoteOf));
  const num = (k: 'n' | 'seed' | 'concurrency') => (e: ChangeEvent<HTMLInputElement>) => {
    const v = Number(e.target.value);
    if (Number.isInteger(v) && v >= 0) setDraft({ [k]: v });
  };
  return (
    <fieldset className="eval-settings" disabled={running}>
      <legend>Evaluation</legend>
      <MethodPicker disabled={running} />
      <AxisPicker disabled={running} />
      <label>
        Tasks per value
        <input
          className="input"
          type="number"
          min={1}
          max={10000}
          value={d.n}
          onChange={num('n')}
          data-testid="eval-n"
        />
      </label>
      <label>
        Seed
        <input
          className="input"
          type="number"
          min={0}
          value={d.seed}
          onChange={num('seed')}
          data-testid="eval-seed"
        />
      </label>
      <label>
        Split
        <select
          className="input"
          value={d.split}
          onChange={(e) => setDraft({ split: e.target.value as typeof d.split })}
          data-testid="eval-split"
        >
          <option value="test">test (held out)</option>
          <option value="train">train</option>
          <option value="all">all</option>
        </select>
      </label>
      <label>
        Backend
        <select
          className="input"
          value={d.backend}
          onChange={(e) => {
            const backend = e.target.value === 'provider' ? 'provider' : 'simulator';
            // A provider run needs a budget: start from the Settings page's limits.
            const fill =
              backend === 'provider' && d.budgetTokens.trim() === '' && d.budgetUsd.trim() === ''
                ? {
                    budgetTokens:
                      settingsBudget.totalTokens !== null ? String(settingsBudget.totalTokens) : '',
                    budgetUsd: settingsBudget.totalUsd !== null ? String(settingsBudget.totalUsd) : '',
                  }
                : {};
            setDraft({ backend, ...fill });
          }}
          data-testid="eval-backend"
        >
          <option value="simulator">simulated sub-agents</option>
          <option value="provider">
            {remote
              ? `${PROVIDER_PRESETS[provider].label} · ${remote.model}`
              : 'provider (set up in Settings)'}
          </option>
        </select>
        <small>
          {d.backend === 'provider'
            ? 'Real calls, billed by the provider; the key stays in this tab.'
            : 'A simulation, not a model.'}
        </small>
      </label>
      <label>
        Token budget
        <input
          className="input"
          value={d.budgetTokens}
          placeholder="none"
          onChange={(e) => setDraft({ budgetTokens: e.target.value })}
          data-testid="eval-budget"
        />
      </label>
      <label>
        $ budget
        <input
          className="input"
          value={d.budgetUsd}
          placeholder="none"
          onChange={(e) => setDraft({ budgetUsd: e.target.value })}
          data-testid="eval-budget-usd"
        />
      </label>
      <label>
        Tasks at once
        <input
          className="input"
          type="number"
          min={1}
          max={64}
          value={d.concurrency}
          onChange={num('concurrency')}
        />
      </label>
    </fieldset>
  );
}

/** `limit` in words: "12,000 tokens · $0.50", or "no limit". */
function budgetWords(b: { tokens?: number; usd?: number }): string {
  const parts = [
    ...(b.tokens !== undefined ? [`${b.tokens.toLocaleString()} tokens`] : []),
    ...(b.usd !== undefined ? [`$${b.usd}`] : []),
  ];
  return parts.length > 0 ? parts.join(' · ') : 'no limit';
}

function Progress(): JSX.Element | null {
  const run = useBaton((s) => s.evalRun);
  if (run.status !== 'running') return null;
  const p = run.progress;
  // The budget is for this run: rows resumed from the journal were paid for before.
  const used = p
    ? { tokens: p.tokens - run.resumedSpend.tokens, usd: Math.max(0, p.usd - run.resumedSpend.usd) }
    : null;
  return (
    <div className="eval-progress" data-testid="eval-progress">
      <p>
        {p ? `${p.done} / ${p.total} tasks · ${p.running} running` : 'Starting…'}
        {run.resumed > 0 ? ` · ${run.resumed} resumed from this browser's journal` : ''}
      </p>
      {used && (
        <p data-testid="eval-budget-used">
          Budget used: {used.tokens.toLocaleString()}
          {run.budget.tokens !== undefined ? ` / ${run.budget.tokens.toLocaleString()}` : ''} tokens
          {used.usd > 0 || run.budget.usd !== undefined
            ? ` · $${used.usd.toFixed(4)}${run.budget.usd !== undefined ? ` / $${run.budget.usd}` : ''}`
            : ''}
        </p>
      )}
      {p &&
        Object.entries(p.perMethod).map(([m, c]) => (
          <div key={m} className="eval-method-progress">
            <span>{m}</span>
            <progress max={c.total} value={c.done} />
            <span>
              {c.done}/{c.total}
            </span>
          </div>
        ))}
    </div>
  );
}

function TraceList({
  pick,
  rows,
  onClose,
}: {
  pick: Pick;
  rows: readonly EvalRow[];
  onClose: () => void;
}): JSX.Element {
  const openEvalTrace = useBaton((s) => s.openEvalTrace);
  const [missing, setMissing] = useState<string | null>(null);
  const mine = rows.filter(
    (r) =>
      r.method === pick.method && (pick.axis === null || (r.axis === pick.axis && r.value === pick.value)),
  );
  const open = async (id: string): Promise<void> => {
    const opened = await openEvalTrace(id);
    if (opened) navigate(traceHash(opened));
    else setMissing(id);
  };
  return (
    <aside className="eval-traces" data-testid="eval-traces">
      <header>
        <h3>
          {pick.method}
          {pick.axis !== null ? ` · ${pick.axis} ${pick.value}` : ''}: {mine.length} traces
        </h3>
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </header>
      {missing && (
        <p className="muted">Trace {missing} is not stored in this browser (results loaded from a file).</p>
      )}
      <ul>
        {mine.slice(0, MAX_LISTED).map((r) => (
          <li key={r.key}>
            <button
              type="button"
              className="link"
              onClick={() => void open(r.traceId)}
              data-testid="eval-trace-link"
            >
              {r.correct === true ? '✓' : '✗'} {r.taskId}
            </button>{' '}
            <span className="muted">
              {r.tokens} tokens · {r.llmCalls} calls
            </span>
          </li>
        ))}
      </ul>
      {mine.length > MAX_LISTED && (
        <p className="muted">The first {MAX_LISTED} are listed; export the rows for all.</p>
      )}
    </aside>
  );
}

export function EvalPage(): JSX.Element {
  useEffect(() => {
    // The method picker lists the saved checkpoints and the manifest's orchestrator models.
    void useBaton.getState().initBuildCheckpoints();
    void useBaton.getState().initOrchestrate();
  }, []);
  const run = useBaton((s) => s.evalRun);
  const doc = useBaton((s) => s.evalDoc);
  const startEval = useBaton((s) => s.startEval);
  const cancelEval = useBaton((s) => s.cancelEval);
  const exportEval = useBaton((s) => s.exportEval);
  const loadEvalFile = useBaton((s) => s.loadEvalFile);
  const [pick, setPick] = useState<Pick | null>(null);
  const [fileProblems, setFileProblems] = useState<{ code: string; message: string }[]>([]);
  // What the check reads: the draft and the provider's settings (no key is read).
  useBaton(useShallow((s) => [s.evalDraft, s.provider, s.connections, s.keyLocation, s.orchModels]));
  const check = evalCheckOf(useBaton.getState());
  const set = check.ok ? check.config.taskSet : null;
  const jobs =
    check.ok && set?.kind === 'masbench'
      ? check.config.methods.filter((m) => runsOnPage(m, shippedModels(useBaton.getState()))).length *
        set.n *
        set.axes.reduce((s, a) => s + a.values.length, 0)
      : 0;
  const save = (kind: 'json' | 'rows-csv' | 'summary-csv'): void => {
    const f = exportEval(kind);
    if (f) download(f.name, f.text, kind === 'json' ? 'application/json' : 'text/csv');
  };
  const onFile = async (e: ChangeEvent<HTMLInputElement>): Promise<void> => {
    const file = e.target.files?.[0];
    if (!file) return;
    setFileProblems(
      file.size > 256 * 1024 * 1024
        ? [{ code: 'E_EVAL_FILE', message: 'The file is larger than 256 MB.' }]
        : loadEvalFile(await file.text()),
    );
  };
  return (
    <section className="page eval-page" data-testid="eval-page">
      <h1 className="page-title">Evaluate</h1>
      <p className="muted">
        Methods × MASBench tasks on the simulated sub-agents (a simulation, not a model) or on the provider
        set up in Settings, under a hard token/$ budget. Accuracy with 95% Wilson intervals, cost, McNemar
        tests and the accuracy–cost Pareto front. Finished tasks are kept in this browser: run the same
        settings again after a reload to resume; nothing finished is run (or billed) again.
      </p>
      <Settings />
      {!check.ok && (
        <ProblemAlert
          title="These settings cannot run"
          problems={check.problems}
          testId="eval-config-error"
        />
      )}
      <div className="eval-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={!check.ok || run.status === 'running'}
          onClick={() => void startEval()}
          data-testid="eval-run"
        >
          Run {jobs > 0 ? `${jobs} tasks` : ''}
        </button>
        {check.ok && (
          <span className="muted" data-testid="eval-budget-summary">
            {check.config.backend.kind === 'remote'
              ? `On ${check.config.backend.model} at ${check.config.backend.baseUrl} · hard budget ${budgetWords(check.config.budget)}: no call is sent past it`
              : `On the simulator · budget ${budgetWords(check.config.budget)}`}
          </span>
        )}
        <button
          type="button"
          className="btn"
          disabled={!check.ok || run.status === 'running'}
          onClick={() => void startEval({ fresh: true })}
          data-testid="eval-fresh"
        >
          Start over
        </button>
        <button
          type="button"
          className="btn"
          disabled={run.status !== 'running'}
          onClick={cancelEval}
          data-testid="eval-cancel"
        >
          Cancel
        </button>
        <label className="file-button">
          Open results…
          <input
            type="file"
            accept=".json,application/json"
            onChange={(e) => void onFile(e)}
            data-testid="eval-open-file"
          />
        </label>
      </div>
      {fileProblems.length > 0 && (
        <ProblemAlert title="The results file could not be read" problems={fileProblems} />
      )}
      <Progress />
      {run.status === 'error' && (
        <ProblemAlert title="The evaluation failed" problems={run.problems} testId="eval-error" />
      )}
      {run.status === 'stopped' && (
        <p className="eval-stopped" data-testid="eval-stopped">
          Stopped before the end ({run.reason}). Run again to resume from what finished.
        </p>
      )}
      {doc && (
        <div className="eval-results" data-testid="eval-results">
          <p data-testid="eval-status">
            {doc.rows.length} / {doc.planned} tasks · {doc.spend.tokens.toLocaleString()} tokens · $
            {doc.spend.usd.toFixed(4)}
            {doc.complete ? ' · complete' : ''}
          </p>
          {doc.summary.methods
            .filter((m) => !m.available)
            .map((m) => (
              <p key={m.method} className="muted" data-testid="eval-unavailable">
                {m.label}: not run — {m.unavailable}
              </p>
            ))}
          <div className="eval-exports">
            <button type="button" className="btn" onClick={() => save('json')} data-testid="eval-export-json">
              Export JSON
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => save('rows-csv')}
              data-testid="eval-export-csv"
            >
              Export rows CSV
            </button>
            <button type="button" className="btn" onClick={() => save('summary-csv')}>
              Export summary CSV
            </button>
          </div>
          <ShareResults />
          <div className="eval-figures">
            <ParetoScatter doc={doc} onPick={(method) => setPick({ method, axis: null, value: null })} />
            {pick && <TraceList pick={pick} rows={doc.rows} onClose={() => setPick(null)} />}
          </div>
          <AxisCurves doc={doc} onPick={(method, axis, value) => setPick({ method, axis, value })} />
          <EvalTable doc={doc} onPick={(method, axis, value) => setPick({ method, axis, value })} />
          <h2>Paired comparisons (McNemar)</h2>
          <PairsTable doc={doc} />
        </div>
      )}
    </section>
  );
}
