import { useMemo, useState, type JSX } from 'react';
import type { ConstructionStep } from '../../core/trace.ts';
import {
  actionNames,
  currentFrame,
  sessionTrace,
  stepsOf,
  visibleDesign,
  type StepPreview,
} from '../../store/construction.ts';
import type { BuildPick, BuildSession } from '../../store/construction.ts';
import { episodeReward, stepRewards } from '../../store/slices/build-reward.ts';
import { useBaton, type BatonState } from '../../store/store.ts';
import { agentCount, plural } from '../common/format.ts';
import { ShareDialog } from '../share/ShareDialog.tsx';
import { BuildGraph, type Candidate } from './BuildGraph.tsx';
import { BuildToolbar } from './BuildToolbar.tsx';
import { NextStep } from './NextStep.tsx';
import { RunActions } from './RunActions.tsx';
import { ShortcutHelp } from './ShortcutHelp.tsx';
import { StepList } from './StepList.tsx';
import { useBuildShortcuts } from './useBuildShortcuts.ts';

const selectPreview = (s: BatonState): StepPreview | null => s.buildPreview;
const selectPick = (s: BatonState): BuildPick => s.buildPick;
const selectBusy = (s: BatonState): boolean => s.buildBusy;
const selectStepMs = (s: BatonState): number[] => s.buildStepMs;
const selectDecodings = (s: BatonState): BatonState['buildDecodings'] => s.buildDecodings;

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

function lastAdded(steps: ConstructionStep[]): string | null {
  const last = steps[steps.length - 1];
  return last?.action.kind === 'add' ? last.action.agentId : null;
}

/** Where the policy runs and how long its steps take (median and maximum of the recent steps). */
function PolicyTiming({ session, stepMs }: { session: BuildSession; stepMs: number[] }): JSX.Element {
  const med = median(stepMs);
  return (
    <div
      className="muted small build-perf"
      data-testid="build-perf"
      data-median-ms={med ?? ''}
      data-max-ms={stepMs.length > 0 ? Math.max(...stepMs) : ''}
    >
      {session.policyName} on <strong data-testid="build-backend">{session.backend}</strong>
      {med !== null && (
        <>
          {' '}
          · policy step {med.toFixed(2)} ms median, {Math.max(...stepMs).toFixed(2)} ms max ({stepMs.length})
        </>
      )}
      <div title={session.backendReason}>{session.backendReason}</div>
    </div>
  );
}

/** R of the design as it stands, as the trainer would score it, with its terms; or why there is none. */
function EpisodeRewardLine({ session }: { session: BuildSession }): JSX.Element | null {
  const r = useMemo(() => episodeReward(session), [session]);
  if (session.cursor === 0) return null;
  return (
    <div className="build-reward-total" data-testid="build-reward-total" data-na={r.value === null}>
      {r.value === null ? (
        <span className="muted">R (the design as it stands) = n/a — {r.why}</span>
      ) : (
        <span
          className="mono"
          title="The group reward Train scores a finished construction with (its default λ and costScale); Train normalises it over the group"
        >
          {r.formula}
        </span>
      )}
    </div>
  );
}

/** A construction in progress: the toolbar and graph in the middle, the next step and the steps on the right. */
export function BuildWorkspace({ session }: { session: BuildSession }): JSX.Element {
  const preview = useBaton(selectPreview);
  const pick = useBaton(selectPick);
  const busy = useBaton(selectBusy);
  const stepMs = useBaton(selectStepMs);
  const decodings = useBaton(selectDecodings);
  const [help, setHelp] = useState(false);
  const [sharing, setSharing] = useState(false);
  const toggleHelp = useMemo(() => () => setHelp((h) => !h), []);
  useBuildShortcuts(toggleHelp);

  const frame = currentFrame(session);
  const state = frame.state;
  const pool = state.pool;
  const names = useMemo(() => actionNames(pool), [pool]);
  const exited = state.exited;
  // The frame's design keeps its identity when the step's answer arrives, so the graph does not redraw.
  const design = useMemo(() => visibleDesign(frame.design, exited), [frame.design, exited]);
  const steps = useMemo(() => stepsOf(session), [session]);
  const rewards = useMemo(() => stepRewards(session), [session]);
  const pickIsRole = pick.action !== null && pick.action < pool.roles.length;
  const showRole = preview && (pick.action === null || pickIsRole) ? preview.role : null;
  const role = showRole === null ? null : pool.roles[showRole];
  // Memoised on what they show, so store updates that change neither (timings, the simulator's
  // answer for the frame) do not re-render the graph.
  const candidates = useMemo<Candidate[]>(() => {
    if (showRole === null || !preview) return [];
    const selected = new Set(pick.links ?? preview.sampledLinks);
    return preview.edges.map((e) => ({ from: e.from, p: e.p, selected: selected.has(e.from) }));
  }, [showRole, preview, pick.links]);
  const ghost = useMemo(
    () => (role && !exited ? { role: role.name, type: role.agentType, picked: pickIsRole } : null),
    [role, exited, pickIsRole],
  );
  const toggle = useBaton((s) => s.toggleBuildLink);
  const pickAction = useBaton((s) => s.pickBuildAction);

  return (
    <>
      <div className="build-center">
        <BuildToolbar session={session} help={help} setHelp={setHelp} />
        {help && <ShortcutHelp onClose={() => setHelp(false)} />}
        <div className="build-graph-wrap">
          {design === null && !ghost ? (
            <div className="graph-empty">Empty MAS</div>
          ) : (
            <BuildGraph
              design={design}
              ghost={ghost}
              candidates={candidates}
              focus={lastAdded(steps)}
              onToggle={toggle}
            />
          )}
          <div className="build-status" data-testid="build-status">
            <span
              data-testid="agent-count"
              data-count={state.agents.length}
              title="While building: the agents the policy added. After EXIT: the final design, which the trace page counts the same way."
            >
              {/* After EXIT the design may gain the summariser, and the count then says so, as the trace page does. */}
              {exited && design ? agentCount(design.agents) : plural(state.agents.length, 'agent')}
            </span>
            <span className="sep">·</span>
            <span data-testid="step-count" data-count={steps.length}>
              step {steps.length} / {state.limits.maxSteps}
            </span>
            {exited && (
              <>
                <span className="sep">·</span>
                <span className="chip chip-ok" data-testid="build-exited">
                  finished
                </span>
              </>
            )}
          </div>
        </div>
      </div>
      <aside className="build-right">
        <NextStep
          pool={pool}
          names={names}
          preview={preview}
          pick={pick}
          candidates={candidates}
          temperature={session.temperature}
          exited={exited}
          busy={busy}
          onPick={(c) => void pickAction(c)}
          onToggle={toggle}
        />
        <section className="build-card build-steps">
          <div className="build-card-head">
            <h2>Steps</h2>
            {session.execute === 'simulator' && (
              <span className="badge badge-warn">SIMULATED sub-agents</span>
            )}
          </div>
          <EpisodeRewardLine session={session} />
          <StepList
            frames={session.frames}
            cursor={session.cursor}
            executed={session.execute !== 'off'}
            rewards={rewards}
            decodings={decodings}
          />
        </section>
        <RunActions session={session} busy={busy} onShare={() => setSharing(true)} />
        <PolicyTiming session={session} stepMs={stepMs} />
      </aside>
      {sharing && <ShareDialog trace={sessionTrace(session)} onClose={() => setSharing(false)} />}
    </>
  );
}
