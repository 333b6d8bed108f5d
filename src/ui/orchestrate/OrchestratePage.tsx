import { useEffect, type JSX } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { PROVIDER_PRESETS } from '../../store/slices/settings.ts';
import {
  orchDesignOf,
  orchestrateBlockers,
  orchRunBlockers,
  type OrchGeneration,
} from '../../store/slices/orchestrate.ts';
import { useBaton } from '../../store/store.ts';
import { navigate, traceHash } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { ModelPanel } from './ModelPanel.tsx';
import { OutputPanel } from './OutputPanel.tsx';
import { TaskPanel } from './TaskPanel.tsx';
import './orchestrate.css';

/**
 * The Orchestrate page: a language model in this tab (in a worker, on WebGPU or wasm) reads the
 * task and writes a whole MAS design; the design streams in as text and as a growing graph; the
 * finished design is checked, then runs on the simulator or the Settings provider and opens on the
 * trace page. See docs/orchestrate-page.md.
 */

function Check(): JSX.Element | null {
  const g = useBaton((s) => s.orchGen);
  return g ? <CheckView g={g} /> : null;
}

/** The parse and validation of a finished generation, in words. */
export function CheckView({ g }: { g: OrchGeneration }): JSX.Element | null {
  if (g.status === 'running') return null;
  const design = orchDesignOf(g);
  return (
    <div className="orch-check-result" data-testid="orch-check" data-valid={design ? 'true' : 'false'}>
      {g.problems.length > 0 && (
        <ProblemAlert title="The model stopped with an error" problems={g.problems} testId="orch-gen-error" />
      )}
      {design ? (
        <p className="alert alert-ok" role="status">
          The design parses and passes every rule: {design.agents.length}{' '}
          {design.agents.length === 1 ? 'agent' : 'agents'}, {design.edges.length}{' '}
          {design.edges.length === 1 ? 'edge' : 'edges'}, Degree of MAS {design.dom}.
        </p>
      ) : g.check && g.check.lines.length > 0 ? (
        <ProblemAlert
          title={
            g.status === 'interrupted'
              ? 'The interrupted output is not a complete design'
              : 'The output is not a valid design'
          }
          problems={g.check.lines.map((message) => ({ code: 'E_MODEL_OUTPUT', message }))}
          testId="orch-check-problems"
        />
      ) : (
        g.problems.length === 0 && <p className="muted">The model wrote nothing.</p>
      )}
    </div>
  );
}

function RunActions(): JSX.Element | null {
  const g = useBaton((s) => s.orchGen);
  const run = useBaton((s) => s.orchRun);
  const runOrchestrated = useBaton((s) => s.runOrchestrated);
  const stop = useBaton((s) => s.stopOrchRun);
  const provider = useBaton((s) => s.provider);
  const model = useBaton((s) => s.connections[s.provider].model);
  const [simBlockers, provBlockers] = useBaton(
    useShallow((s) => [orchRunBlockers(s, 'simulator').join(' '), orchRunBlockers(s, 'provider').join(' ')]),
  );
  if (!g || g.status === 'running' || !orchDesignOf(g)) return null;
  const go = async (target: 'simulator' | 'provider'): Promise<void> => {
    const id = await runOrchestrated(target);
    if (id) navigate(traceHash(id));
  };
  return (
    <div className="orch-run">
      <div className="orch-actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={simBlockers !== ''}
          title={simBlockers || undefined}
          onClick={() => void go('simulator')}
          data-testid="orch-run-sim"
        >
          Run on the simulator
        </button>
        <span className="badge badge-warn" title="Programmatic sub-agents, not an LLM">
          SIMULATED
        </span>
        <button
          type="button"
          className="btn"
          disabled={provBlockers !== ''}
          title={provBlockers || undefined}
          onClick={() => void go('provider')}
          data-testid="orch-run-provider"
        >
          Run on {PROVIDER_PRESETS[provider].label}
          {model.trim() ? ` · ${model.trim()}` : ''}
        </button>
        {run.status === 'running' && run.target === 'provider' && (
          <button type="button" className="btn btn-danger" onClick={stop}>
            Stop
          </button>
        )}
        {run.status === 'running' && (
          <span className="muted" data-testid="orch-run-progress">
            Running
            {run.progress ? ` · ${run.progress.done} / ${run.progress.total} agents` : '…'}
          </span>
        )}
      </div>
      <p className="muted small">
        The simulator: offline programmatic sub-agents for generated MASBench tasks, a simulation, not a model
        {simBlockers ? ` (${simBlockers})` : ''}. The provider: real calls with the key and budget set in
        Settings{provBlockers ? ` (${provBlockers})` : ''}.
      </p>
      {run.status === 'error' && (
        <ProblemAlert title="The design could not run" problems={run.problems} testId="orch-run-error" />
      )}
    </div>
  );
}

function Placeholder(): JSX.Element | null {
  const none = useBaton((s) => s.orchGen === null);
  if (!none) return null;
  return (
    <div className="empty orch-placeholder">
      <p className="muted">
        Load a model, write or generate a task, then Orchestrate: the thinking and the design stream in here,
        and the graph grows as the model declares agents and edges.
      </p>
    </div>
  );
}

export function OrchestratePage(): JSX.Element {
  const init = useBaton((s) => s.initOrchestrate);
  const initSettings = useBaton((s) => s.initSettings);
  const start = useBaton((s) => s.startOrchestrate);
  const blockers = useBaton(useShallow(orchestrateBlockers));
  useEffect(() => {
    initSettings();
    void init();
  }, [init, initSettings]);
  return (
    <section className="page orch-page" data-testid="orchestrate-page">
      <h1 className="page-title">Orchestrate</h1>
      <p className="muted">
        A language model running in this tab reads the task and writes the whole multi-agent design: its
        thinking, the agents and the edges between them. Nothing leaves the browser while it writes. With
        constrained decoding on, every finished design parses and passes the design rules.
      </p>
      <div className="orch-layout">
        <div className="orch-settings">
          <ModelPanel />
          <TaskPanel />
          <div className="orch-actions">
            <button
              type="button"
              className="btn btn-primary"
              disabled={blockers.length > 0}
              onClick={() => void start()}
              data-testid="orch-start"
            >
              Orchestrate
            </button>
            {blockers.length > 0 && (
              <span className="muted small" data-testid="orch-blockers">
                {blockers.join(' ')}
              </span>
            )}
          </div>
        </div>
        <div className="orch-main">
          <Placeholder />
          <OutputPanel />
          <Check />
          <RunActions />
        </div>
      </div>
    </section>
  );
}
