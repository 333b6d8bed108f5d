import {
  DIAGRAM_DATA_URL,
  MAX_DIAGRAM_CHARS,
  type DesignRecovery,
  type SourceDisagreement,
  type Trace,
} from '../../core/trace.ts';

/**
 * Where the design on the trace page comes from, in words the header and the canvas share: a
 * recorded design, one recovered from the orchestrator's text (never executed as shown), or none
 * at all because the source published the design only as a diagram.
 */
export type DesignProvenance =
  { kind: 'recorded' } | { kind: 'recovered'; recovery: DesignRecovery } | { kind: 'diagram-only' };

export function designProvenance(trace: Trace): DesignProvenance {
  const d = trace.designer;
  if (d.kind === 'imported' && d.designRecovery && trace.design.agents.length > 0) {
    return { kind: 'recovered', recovery: d.designRecovery };
  }
  if (
    trace.design.agents.length === 0 &&
    trace.design.directAnswer === undefined &&
    trace.construction.length === 0 &&
    (trace.tags.includes('design-in-diagram-only') || safeDiagram(trace.diagram) !== null)
  ) {
    return { kind: 'diagram-only' };
  }
  return { kind: 'recorded' };
}

export const DIAGRAM_ONLY_TEXT = 'design not recorded (diagram only)';

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

const EDGES_FROM: Record<DesignRecovery['edgesFrom'], string> = {
  'edge-block': 'its drafted <edge> block',
  references: 'the ${…} references in the agents’ inputs',
  'edge-block+references': 'its drafted <edge> block and the ${…} references',
  none: 'nothing (no edges were drafted)',
};

/** The header's sentence about a recovered design: what was read, and that it did not run as shown. */
export function recoverySentence(r: DesignRecovery): string {
  const which = r.drafts > 1 ? `draft ${r.draft} of ${r.drafts}` : 'the one draft';
  const repairs = r.repairs.length > 0 ? ` ${plural(r.repairs.length, 'change')} noted below.` : '';
  return `Design recovered from the orchestrator's text, not executed: ${plural(r.agents, 'agent')} from ${which} of agent blocks it wrote, edges from ${EDGES_FROM[r.edgesFrom]}. The page published this design only as a diagram.${repairs}`;
}

const FIELD_NAMES: Record<string, string> = { subAgentModel: 'sub-agent model', dom: 'Degree of MAS' };

/** "sub-agent model: the page says gpt-oss-120b, the code calls gpt-oss-20b". */
export function disagreementText(d: SourceDisagreement): string {
  const field = FIELD_NAMES[d.field] ?? d.field;
  const verb = d.field === 'subAgentModel' ? 'calls' : 'says';
  const whose = d.codeOf === 'other-items' ? "the other slides' code" : 'the code';
  return `${field}: the page says ${d.page}, ${whose} ${verb} ${d.code}`;
}

export function disagreementsOf(trace: Trace): SourceDisagreement[] {
  return trace.designer.kind === 'imported' ? (trace.designer.disagreements ?? []) : [];
}

/** The diagram URL if it is one the page may show (a base64 PNG, JPEG or WebP data URL), else null. */
export function safeDiagram(url: unknown): string | null {
  return typeof url === 'string' && url.length <= MAX_DIAGRAM_CHARS && DIAGRAM_DATA_URL.test(url)
    ? url
    : null;
}
