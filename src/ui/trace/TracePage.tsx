import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type JSX,
  type RefObject,
} from 'react';
import { AGENT_TYPES, type AgentType } from '../../core/agents.ts';
import type { Trace } from '../../core/trace.ts';
import { layoutKey } from '../../view/layout.ts';
import { STEP_CHOICE_LABEL, STEP_CHOICE_TITLE, stepChoice } from '../../view/construction-choice.ts';
import { buildReplay, replayStateAt, type ReplayState } from '../../view/replay.ts';
import { useBaton } from '../../store/store.ts';
import { formatCost } from '../common/format.ts';
import { GraphView } from '../graph/GraphView.tsx';
import { Legend } from '../graph/Legend.tsx';
import { RoleDistribution } from '../graph/RoleDistribution.tsx';
import { Markdown } from '../markdown/Markdown.tsx';
import { CanvasRecoveredNote, DiagramOnlyEmpty } from './DesignProvenance.tsx';
import { DiagramViewer } from './DiagramViewer.tsx';
import { Inspector } from './Inspector.tsx';
import { designProvenance, DIAGRAM_ONLY_TEXT, safeDiagram } from './provenance.ts';
import { ReplayControl } from './ReplayControl.tsx';
import {
  selectLayout,
  selectPosition,
  selectSelectAgent,
  selectSelected,
  selectViewerTraceId,
} from './selectors.ts';
import { TaskPanel } from './TaskPanel.tsx';
import { Timeline } from './Timeline.tsx';
import './trace.css';

/** Sizes the page to the rest of the viewport below wherever the app shell placed it. */
function useFillViewport(): RefObject<HTMLDivElement | null> {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const fit = (): void => {
      const top = el.getBoundingClientRect().top + window.scrollY;
      const height = `${Math.max(560, window.innerHeight - top)}px`;
      if (el.style.height !== height) el.style.height = height;
    };
    fit();
    // Content above the page (an import notice, say) can appear or go away without a window
    // resize; it changes the size of the body or of the frame around the page.
    const ro = new ResizeObserver(fit);
    ro.observe(document.body);
    if (el.parentElement) ro.observe(el.parentElement);
    window.addEventListener('resize', fit);
    return () => {
      ro.disconnect();
      window.removeEventListener('resize', fit);
    };
  }, []);
  return ref;
}

/**
 * The construction step at the replay position: what the policy chose, its role distribution and
 * candidate links. It sits above the inspector, beside the graph, so the graph keeps its full width.
 */
function ConstructionCard({ state, total }: { state: ReplayState; total: number }): JSX.Element | null {
  const c = state.candidate;
  if (!c) return null;
  const s = c.step;
  const choice = stepChoice(s);
  return (
    <div className="construction-card" data-testid="construction-step">
      <div className="construction-title">
        <strong>
          Construction step {s.index + 1} / {total}
        </strong>
        <span className="chip" data-testid="step-choice" title={STEP_CHOICE_TITLE[choice]}>
          {STEP_CHOICE_LABEL[choice]}
        </span>
      </div>
      <div className="muted small">
        {state.description}
        {s.logProb !== null && <> · log π = {s.logProb.toFixed(3)}</>}
        {s.actionReward !== null && s.actionReward !== undefined && <> · r = {s.actionReward.toFixed(2)}</>}
      </div>
      <div className="construction-sub">Role distribution π_node</div>
      <RoleDistribution step={s} />
      {c.edges.length > 0 && (
        <div className="muted small">Dashed edges: π_edge per candidate link (✓ = sampled).</div>
      )}
      {s.intermediateAnswer !== undefined && s.intermediateAnswer !== null && (
        <div className="construction-answer">
          <span className="muted small">intermediate answer</span>{' '}
          {s.intermediateCorrect === true && <span className="chip chip-ok">correct</span>}
          {s.intermediateCorrect === false && <span className="chip chip-bad">wrong</span>}
          <Markdown text={s.intermediateAnswer} />
        </div>
      )}
      {s.intermediateRun && (
        <div
          className="muted small"
          data-testid="construction-run"
          title={s.intermediateRun.problem ?? 'where the intermediate answer came from and what it cost'}
        >
          {s.intermediateRun.backend === 'simulated' ? (
            <span className="badge badge-warn">SIMULATED</span>
          ) : (
            'provider'
          )}{' '}
          · {s.intermediateRun.status} · {s.intermediateRun.calls} calls sent, {s.intermediateRun.cachedCalls}{' '}
          from the cache · {s.intermediateRun.promptTokens + s.intermediateRun.completionTokens} tokens
          {s.intermediateRun.costUsd > 0 && <> · {formatCost(s.intermediateRun.costUsd)}</>}
          {s.intermediateRun.problem !== undefined && <> · {s.intermediateRun.problem}</>}
        </div>
      )}
    </div>
  );
}

function GraphEmpty({ trace, state }: { trace: Trace; state: ReplayState }): JSX.Element {
  if (designProvenance(trace).kind === 'diagram-only') {
    return <DiagramOnlyEmpty hasDiagram={safeDiagram(trace.diagram) !== null} />;
  }
  if (trace.design.agents.length === 0 && trace.construction.length === 0) {
    if (trace.design.directAnswer !== undefined)
      return (
        <div className="graph-empty" data-testid="graph-empty" data-branch="direct">
          <h3>Answered directly, no sub-agent</h3>
          <p>
            The designer answered the question itself instead of delegating to sub-agents (low Degree of MAS,
            the direct-answer branch), so there is no graph and no agent ran. The answer:
          </p>
          <p className="graph-direct-answer" data-testid="graph-direct-answer">
            {trace.design.directAnswer === '' ? '(empty answer)' : trace.design.directAnswer}
          </p>
        </div>
      );
    return (
      <div className="graph-empty" data-testid="graph-empty">
        <h3>No agents</h3>
        <p>This trace has no MAS design: nothing was delegated to sub-agents.</p>
      </div>
    );
  }
  return (
    <div className="graph-empty" data-testid="graph-empty">
      <h3>{state.phase === 'start' ? 'Before construction' : 'No agents at this step'}</h3>
      <p>
        Construction starts from an empty graph. Step forward (→) or press play to watch agents being added.
      </p>
    </div>
  );
}

/**
 * The Trace page: graph, inspector, task panel, timeline and replay, all showing the trace at the
 * store's replay position (the end, i.e. the whole trace, when a trace opens).
 */
export function TracePage({ trace }: { trace: Trace }): JSX.Element {
  const replay = useMemo(() => buildReplay(trace), [trace]);
  const viewerTraceId = useBaton(selectViewerTraceId);
  const storedPosition = useBaton(selectPosition);
  const storedSelected = useBaton(selectSelected);
  const selectAgent = useBaton(selectSelectAgent);
  const layout = useBaton(selectLayout);
  const own = viewerTraceId === trace.id;
  // Until the store is pointed at this trace, show its default: the end, the final agent selected
  // (the inspector opens on the agent whose output is the answer).
  const position = own ? storedPosition : replay.length;
  const selected = own ? storedSelected : replay.sink;

  useEffect(() => {
    useBaton.getState().openTraceView(trace.id, replay.length, replay.sink);
  }, [trace.id, replay.length, replay.sink]);

  const state = useMemo(() => replayStateAt(replay, trace, position), [replay, trace, position]);

  // Execution replay keeps one layout of the design, so nodes stay put while statuses change.
  // Construction replay lays out the graph as it is after each step, candidate links included, so
  // the agent being added sits downstream of the agents it may link to.
  const designGraph = useMemo(
    () => ({ nodes: trace.design.agents.map((a) => a.id), edges: trace.design.edges }),
    [trace],
  );
  const constructing = state.phase !== 'execution' && replay.constructionSteps > 0;
  const constructionGraph = useMemo(() => {
    if (!constructing) return null;
    const extra = (state.candidate?.edges ?? []).filter(
      (c) => !state.edges.some((e) => e.from === c.from && e.to === c.to),
    );
    return { nodes: state.agents, edges: [...state.edges, ...extra] };
  }, [constructing, state]);
  const graph = constructionGraph ?? designGraph;
  const key = useMemo(() => layoutKey(graph), [graph]);
  // Before paint, so a small graph (laid out synchronously) never flashes the placeholder. A big one
  // shows it until the layout worker answers, then the graph on its final layout.
  useLayoutEffect(() => {
    useBaton.getState().requestLayout(graph);
  }, [graph]);
  const types = useMemo(() => {
    const present = new Set<AgentType>([...replay.agents.values()].map((a) => a.type));
    return AGENT_TYPES.filter((t) => present.has(t));
  }, [replay]);

  const onSelect = useCallback((id: string | null) => selectAgent(id), [selectAgent]);
  const [showTimeline, setShowTimeline] = useState(true);
  const [diagramExpanded, setDiagramExpanded] = useState(false);
  const [diagramHidden, setDiagramHidden] = useState(false);
  const diagram = safeDiagram(trace.diagram);
  const provenance = designProvenance(trace).kind;
  const recovered = provenance === 'recovered';
  const ref = useFillViewport();
  const layoutReady = layout.key === key && !layout.pending;

  return (
    <div className="trace-page" ref={ref} data-testid="trace-page">
      <div className="tp-left">
        <TaskPanel trace={trace} />
      </div>
      <div className="tp-center">
        <ReplayControl
          description={state.description}
          phase={state.phase}
          constructionSteps={replay.constructionSteps}
        />
        {/* The layout state of the graph on screen, for tests and tools. */}
        <div
          className="graph-area"
          data-testid="graph"
          data-layout-pending={layout.key === key ? String(layout.pending) : undefined}
          data-layout-source={layoutReady ? (layout.source ?? undefined) : undefined}
        >
          <div className="graph-toolbar">
            <Legend
              types={types}
              showStatus={
                (state.phase === 'execution' || replay.constructionSteps === 0) && replay.agents.size > 0
              }
            />
            {recovered && <CanvasRecoveredNote />}
            <span className="graph-count muted">
              {provenance === 'diagram-only' ? (
                DIAGRAM_ONLY_TEXT
              ) : (
                <>
                  {state.agents.length} {state.agents.length === 1 ? 'agent' : 'agents'} ·{' '}
                  {state.edges.length} {state.edges.length === 1 ? 'edge' : 'edges'}
                </>
              )}
            </span>
          </div>
          <div
            className={`graph-canvas${diagram ? ' with-diagram' : ''}${diagram && diagramExpanded ? ' diagram-expanded' : ''}${diagram && diagramHidden ? ' diagram-hidden' : ''}`}
          >
            <div className="graph-flow">
              {state.agents.length === 0 ? (
                <GraphEmpty trace={trace} state={state} />
              ) : layoutReady ? (
                <GraphView
                  replay={replay}
                  state={state}
                  positions={layout.positions}
                  graphKey={key}
                  selectedId={selected}
                  onSelect={onSelect}
                />
              ) : (
                <div className="graph-empty" data-testid="graph-placeholder">
                  <p className="muted">Laying out {graph.nodes.length} agents…</p>
                </div>
              )}
            </div>
            {diagram && (
              <DiagramViewer
                url={diagram}
                source={trace.designer.kind === 'imported' ? trace.designer.tool : 'the source tool'}
                expanded={diagramExpanded}
                onExpand={setDiagramExpanded}
                hidden={diagramHidden}
                onHide={setDiagramHidden}
              />
            )}
          </div>
        </div>
        <div className={showTimeline ? 'timeline-wrap' : 'timeline-wrap collapsed'}>
          <button type="button" className="timeline-toggle" onClick={() => setShowTimeline(!showTimeline)}>
            {showTimeline ? '▾' : '▸'} Timeline
          </button>
          {showTimeline && (
            <Timeline trace={trace} replay={replay} state={state} selectedId={selected} onSelect={onSelect} />
          )}
        </div>
      </div>
      <div className="tp-right">
        <ConstructionCard state={state} total={replay.constructionSteps} />
        <Inspector trace={trace} replay={replay} state={state} selectedId={selected} onSelect={onSelect} />
      </div>
    </div>
  );
}
