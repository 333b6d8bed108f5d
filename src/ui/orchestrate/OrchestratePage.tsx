import { useEffect, type JSX } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { orchDesignOf, orchestrateBlockers, type OrchGeneration } from '../../store/slices/orchestrate.ts';
import { useBaton } from '../../store/store.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';
import { ModelPanel } from './ModelPanel.tsx';
import { OutputPanel } from './OutputPanel.tsx';
import { OrchestratorChoice, ProviderPanel } from './ProviderPanel.tsx';
import { RunActions } from './RunActions.tsx';
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
/** The branch the designer record says the design took (`direct`, `delegate`, `mas`). */
const branchOf = (g: OrchGeneration): string | null => {
  const d = g.result?.designer;
  return d && d.kind === 'orchestrator' ? (d.branch ?? null) : null;
};

export function CheckView({ g }: { g: OrchGeneration }): JSX.Element | null {
  if (g.status === 'running') return null;
  const design = orchDesignOf(g);
  return (
    <div
      className="orch-check-result"
      data-testid="orch-check"
      data-valid={design ? 'true' : 'false'}
      data-branch={branchOf(g) ?? undefined}
    >
      {g.problems.length > 0 && (
        <ProblemAlert title="The model stopped with an error" problems={g.problems} testId="orch-gen-error" />
      )}
      {design && design.agents.length === 0 && design.directAnswer !== undefined ? (
        <p className="alert alert-ok" role="status" data-testid="orch-check-direct">
          The output is valid: the model answered directly, with no sub-agent (Degree of MAS {design.dom}, the
          direct-answer branch). {g.tokens} {g.tokens === 1 ? 'token' : 'tokens'} written, no agent to run.
        </p>
      ) : design ? (
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
  const viaProvider = useBaton((s) => s.orchDraft.orchestrator === 'provider');
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
        constrained decoding on, every finished design parses and passes the design rules. Or the provider
        from Settings writes it, an invalid design sent back with its problems.
      </p>
      <div className="orch-layout">
        <div className="orch-settings">
          <OrchestratorChoice />
          {viaProvider ? <ProviderPanel /> : <ModelPanel />}
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
