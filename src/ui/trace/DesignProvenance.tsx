import type { JSX } from 'react';
import type { Trace } from '../../core/trace.ts';
import { agentCount } from '../common/format.ts';
import {
  designProvenance,
  DIAGRAM_ONLY_TEXT,
  disagreementsOf,
  disagreementText,
  recoverySentence,
} from './provenance.ts';

/** The badge that marks a design read back from the orchestrator's text. */
export function RecoveredBadge({ testId = 'recovered-badge' }: { testId?: string }): JSX.Element {
  return (
    <span
      className="badge badge-warn"
      data-testid={testId}
      title="Recovered from the orchestrator's drafted agent blocks; the page recorded no design, and this one was not executed as shown"
    >
      recovered
    </span>
  );
}

/**
 * The header's account of the design: its agent count (with the "recovered" badge when the design
 * was read from the orchestrator's text), or "design not recorded (diagram only)" when the source
 * published only a diagram; then where the page and its code disagree.
 */
export function HeaderDesignMeta({ trace }: { trace: Trace }): JSX.Element {
  const p = designProvenance(trace);
  const disagreements = disagreementsOf(trace);
  return (
    <>
      {p.kind === 'diagram-only' ? (
        <span data-testid="trace-agent-count" data-count={0} data-design="diagram-only">
          {DIAGRAM_ONLY_TEXT}
        </span>
      ) : (
        <span data-testid="trace-agent-count" data-count={trace.design.agents.length} data-design={p.kind}>
          {agentCount(trace.design.agents)}
        </span>
      )}
      {p.kind === 'recovered' && <RecoveredBadge testId="trace-recovered-badge" />}
      {disagreements.map((d, i) => (
        <span
          key={i}
          className="badge badge-warn"
          data-testid="trace-disagreement"
          title="The page and its code disagree"
        >
          {disagreementText(d)}
        </span>
      ))}
    </>
  );
}

/** One sentence under the header for a recovered design; nothing otherwise. */
export function HeaderDesignNote({ trace }: { trace: Trace }): JSX.Element | null {
  const p = designProvenance(trace);
  if (p.kind !== 'recovered') return null;
  return (
    <p className="trace-design-note muted small" data-testid="trace-design-note">
      {recoverySentence(p.recovery)}
    </p>
  );
}

/** On the canvas toolbar of a recovered design: the badge (its tooltip says what it means), and "not executed". */
export function CanvasRecoveredNote(): JSX.Element {
  return (
    <span className="canvas-recovered" data-testid="canvas-recovered">
      <RecoveredBadge />
      <span className="muted">not executed</span>
    </span>
  );
}

/** The canvas of a trace whose source published its design only as a diagram, and nothing else. */
export function DiagramOnlyEmpty({ hasDiagram }: { hasDiagram: boolean }): JSX.Element {
  return (
    <div className="graph-empty" data-testid="graph-empty" data-design="diagram-only">
      <h3>Design not recorded (diagram only)</h3>
      <p>
        The source published this design only as a rendered diagram
        {hasDiagram ? ', shown beside this pane,' : ' (not in this copy of the trace),'} and the
        orchestrator's text drafts no complete set of agent blocks to recover it from. The run did happen: its
        answer is in the task panel.
      </p>
    </div>
  );
}
