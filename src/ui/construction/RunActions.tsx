import type { JSX } from 'react';
import { currentFrame, type BuildSpend } from '../../store/construction.ts';
import type { BuildSession } from '../../store/construction.ts';
import { PROVIDER_PRESETS, providerBlockers } from '../../store/slices/settings.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { navigate, traceHash } from '../app/route.ts';

const selectRunning = (s: BatonState): boolean => s.buildRunning;
const selectProgress = (s: BatonState): BatonState['buildRunProgress'] => s.buildRunProgress;
/** The provider as one string, so the buttons re-render only when it changes. */
const selectProvider = (s: BatonState): string =>
  JSON.stringify({
    label: `${PROVIDER_PRESETS[s.provider].label} · ${s.connections[s.provider].model.trim()}`,
    ready: providerBlockers(s).length === 0,
  });

function spendLine(u: BuildSpend): string {
  const tokens = u.promptTokens + u.completionTokens;
  return `${u.runs} partial runs · ${u.calls} calls sent, ${u.cachedCalls} from the cache · ${tokens} tokens${
    u.costUsd > 0 ? ` · $${u.costUsd.toFixed(4)}` : ''
  }`;
}

/** Where the partial designs run, what they cost so far, and the buttons that finish the build. */
export function RunActions({
  session,
  busy,
  onShare,
}: {
  session: BuildSession;
  busy: boolean;
  onShare: () => void;
}): JSX.Element {
  const running = useBaton(selectRunning);
  const progress = useBaton(selectProgress);
  const provider = JSON.parse(useBaton(selectProvider)) as { label: string; ready: boolean };
  const frame = currentFrame(session);
  const exited = frame.state.exited;
  const steps = session.cursor;
  const evaluating = frame.pending;

  const run = async (target: 'simulator' | 'provider' | 'none'): Promise<void> => {
    const id = await useBaton.getState().runBuild(target);
    if (id) navigate(traceHash(id));
  };
  const finishHint = exited ? undefined : 'Finish the construction with EXIT first';

  return (
    <>
      <div className="muted small build-exec" data-testid="build-exec" data-execute={session.execute}>
        {session.execute === 'off' && 'Partial designs are not executed.'}
        {session.execute === 'simulator' &&
          'Each partial design runs on the simulator (simulated sub-agents).'}
        {session.execute === 'provider' && (
          <>
            Each partial design runs on {provider.label}.{' '}
            <span data-testid="build-spend">
              {session.spend ? spendLine(session.spend) : 'Nothing spent yet.'}
            </span>{' '}
            <button
              type="button"
              className="btn btn-small"
              onClick={() => useBaton.getState().stopBuildExecution()}
              title="Stop executing partial designs for the rest of this construction"
              data-testid="build-stop-exec"
            >
              {evaluating ? 'Stop this run' : 'Stop executing'}
            </button>
          </>
        )}
      </div>
      <div className="build-actions">
        {session.masbench && (
          <button
            type="button"
            className="btn btn-primary"
            disabled={!exited || running || busy}
            onClick={() => void run('simulator')}
            data-testid="build-run"
            title={finishHint}
          >
            Run on simulator
          </button>
        )}
        <button
          type="button"
          className={session.masbench ? 'btn' : 'btn btn-primary'}
          disabled={!exited || running || busy || !provider.ready}
          onClick={() => void run('provider')}
          data-testid="build-run-provider"
          title={
            provider.ready
              ? (finishHint ?? `Run the design on ${provider.label}`)
              : 'Set up a provider in Settings'
          }
        >
          Run on provider
        </button>
        <button
          type="button"
          className="btn"
          disabled={steps === 0 || running || busy}
          onClick={() => void run('none')}
          data-testid="build-open"
          title="Keep the construction as a trace without running it, and open it in the viewer"
        >
          Open in viewer
        </button>
        <button
          type="button"
          className="btn"
          disabled={steps === 0}
          onClick={onShare}
          data-testid="build-share"
        >
          Share construction
        </button>
      </div>
      {running && (
        <div className="build-running small" data-testid="build-running">
          {progress
            ? `Running on the provider: ${progress.done} / ${progress.total} agents finished`
            : 'Running…'}{' '}
          {progress && (
            <button
              type="button"
              className="btn btn-small"
              onClick={() => useBaton.getState().stopBuildRun()}
              data-testid="build-stop-run"
            >
              Stop
            </button>
          )}
        </div>
      )}
    </>
  );
}
