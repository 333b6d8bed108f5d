import type { JSX } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  orchDesignOf,
  orchRunBlockers,
  SIMULATOR_MASBENCH_ONLY,
  type OrchRun,
} from '../../store/slices/orchestrate.ts';
import { orchDirectAnswerOf } from '../../store/slices/orchestrate-direct.ts';
import { PROVIDER_PRESETS } from '../../store/slices/settings.ts';
import { useBaton } from '../../store/store.ts';
import { navigate, traceHash } from '../app/route.ts';
import { ProblemAlert } from '../common/ProblemAlert.tsx';

/**
 * Where a free-text question can run instead of the simulator (which answers generated MASBench
 * tasks only): the Settings provider, a local OpenAI-compatible server (the Ollama preset), or a
 * generated MASBench task, which the simulator can run and grade.
 */
export function SimulatorAlternatives({
  providerReady,
  providerLabel,
  switched,
  onUseMasbench,
}: {
  providerReady: boolean;
  providerLabel: string;
  /** The task panel already holds a generated task (this design was written for the question). */
  switched: boolean;
  onUseMasbench: () => void;
}): JSX.Element {
  return (
    <div className="alert alert-warn orch-sim-why" role="status" data-testid="orch-sim-why">
      <div className="alert-body">
        <strong>The simulator cannot run this design on your question.</strong>
        <p>
          It answers generated MASBench tasks only (its sub-agents are programs that know the task, not a
          model). What works instead:
        </p>
        <ul>
          <li data-testid="orch-alt-provider">
            {providerReady ? (
              <>
                Run on {providerLabel}: the button above sends real calls with the key and budget from
                Settings.
              </>
            ) : (
              <>
                Run on a provider: enter its key and model in <a href="#/settings">Settings</a>, then use the
                provider button above.
              </>
            )}
          </li>
          <li data-testid="orch-alt-local">
            A local OpenAI-compatible server: choose the <strong>Ollama</strong> preset in{' '}
            <a href="#/settings">Settings</a> (no key, nothing leaves this machine).
          </li>
          <li>
            {switched ? (
              <span data-testid="orch-alt-switched">
                The task panel now holds a generated MASBench task: press <strong>Orchestrate</strong> to
                write a design for it, then run that on the simulator.
              </span>
            ) : (
              <>
                <button
                  type="button"
                  className="btn btn-small"
                  onClick={onUseMasbench}
                  data-testid="orch-use-masbench"
                >
                  Use a generated MASBench task
                </button>{' '}
                switches the task panel to one; Orchestrate again, then run it on the simulator.
              </>
            )}
          </li>
        </ul>
      </div>
    </div>
  );
}

/** What the run buttons show: each target's blockers (empty = it can run) and the run in flight. */
export interface RunButtonsProps {
  simBlockers: string;
  provBlockers: string;
  providerLabel: string;
  /** The task panel's mode now (the design may have been written for the other). */
  draftMode: 'custom' | 'masbench';
  run: OrchRun;
  /** The design is a direct answer (no agent): a run only records and grades it. */
  direct?: boolean;
  onRun: (target: 'simulator' | 'provider') => void;
  onStop: () => void;
  onUseMasbench: () => void;
}

/** The run buttons: the one that can run is the primary; each one's reason is written next to it. */
export function RunButtons(p: RunButtonsProps): JSX.Element {
  const simReady = p.simBlockers === '';
  const provReady = p.provBlockers === '';
  const freeText = p.simBlockers === SIMULATOR_MASBENCH_ONLY;
  return (
    <div className="orch-run">
      <div className="orch-actions">
        <button
          type="button"
          className={simReady ? 'btn btn-primary' : 'btn'}
          disabled={!simReady}
          aria-describedby={simReady ? undefined : 'orch-sim-blocker'}
          onClick={() => p.onRun('simulator')}
          data-testid="orch-run-sim"
        >
          Run on the simulator
        </button>
        <span className="badge badge-warn" title="Programmatic sub-agents, not an LLM">
          SIMULATED
        </span>
        <button
          type="button"
          className={provReady && !simReady ? 'btn btn-primary' : 'btn'}
          disabled={!provReady}
          aria-describedby={provReady ? undefined : 'orch-prov-blocker'}
          onClick={() => p.onRun('provider')}
          data-testid="orch-run-provider"
        >
          Run on {p.providerLabel}
        </button>
        {p.run.status === 'running' && p.run.target === 'provider' && (
          <button type="button" className="btn btn-danger" onClick={p.onStop}>
            Stop
          </button>
        )}
        {p.run.status === 'running' && (
          <span className="muted" data-testid="orch-run-progress">
            Running
            {p.run.progress ? ` · ${p.run.progress.done} / ${p.run.progress.total} agents` : '…'}
          </span>
        )}
      </div>
      {p.direct && (
        <p className="muted small" data-testid="orch-run-direct">
          A direct answer has no sub-agent to run: a run records it in a trace (no agent runs, no calls) and
          grades it against a generated task.
        </p>
      )}
      <ul className="orch-run-why small">
        <li id="orch-sim-blocker" data-testid="orch-sim-blocker">
          Simulator: offline programmatic sub-agents for generated MASBench tasks, a simulation, not a model
          {simReady ? '.' : ` — not available: ${p.simBlockers}`}
        </li>
        <li id="orch-prov-blocker" data-testid="orch-prov-blocker">
          Provider: real calls with the key and budget set in <a href="#/settings">Settings</a>
          {provReady ? '.' : ` — not available: ${p.provBlockers}`}
        </li>
      </ul>
      {freeText && (
        <SimulatorAlternatives
          providerReady={provReady}
          providerLabel={p.providerLabel}
          switched={p.draftMode === 'masbench'}
          onUseMasbench={p.onUseMasbench}
        />
      )}
      {p.run.status === 'error' && (
        <ProblemAlert title="The design could not run" problems={p.run.problems} testId="orch-run-error" />
      )}
    </div>
  );
}

/** Run the finished design on the simulator or the Settings provider, with why either cannot. */
export function RunActions(): JSX.Element | null {
  const g = useBaton((s) => s.orchGen);
  const run = useBaton((s) => s.orchRun);
  const runOrchestrated = useBaton((s) => s.runOrchestrated);
  const stop = useBaton((s) => s.stopOrchRun);
  const provider = useBaton((s) => s.provider);
  const model = useBaton((s) => s.connections[s.provider].model);
  const draftMode = useBaton((s) => s.orchDraft.taskMode);
  const setDraft = useBaton((s) => s.setOrchDraft);
  const [simBlockers, provBlockers] = useBaton(
    useShallow((s) => [orchRunBlockers(s, 'simulator').join(' '), orchRunBlockers(s, 'provider').join(' ')]),
  );
  if (!g || g.status === 'running' || !orchDesignOf(g)) return null;
  const go = async (target: 'simulator' | 'provider'): Promise<void> => {
    const id = await runOrchestrated(target);
    if (id) navigate(traceHash(id));
  };
  return (
    <RunButtons
      simBlockers={simBlockers ?? ''}
      provBlockers={provBlockers ?? ''}
      providerLabel={`${PROVIDER_PRESETS[provider].label}${model.trim() ? ` · ${model.trim()}` : ''}`}
      draftMode={draftMode}
      run={run}
      direct={orchDirectAnswerOf(g) !== null}
      onRun={(target) => void go(target)}
      onStop={stop}
      onUseMasbench={() => setDraft({ taskMode: 'masbench' })}
    />
  );
}
