import type { Design, Trace } from '../../core/trace.ts';
import { parseDesign } from '../../design/parse.ts';
import type { RawAgent, RawDesign } from '../../design/raw.ts';
import { toDesign, validateDesign, fromDesign, type Violation } from '../../design/validate.ts';

/**
 * The Run page's design choice: a trace's design, pasted text or a drawing, and the one check that
 * says whether it can run (the same validator as files and the CLI). Pure.
 */

export type DesignMode = 'trace' | 'paste' | 'draw';

/** A design drawn by hand: raw agents (validated live), edges, and where each node sits. */
export interface Draft {
  agents: RawAgent[];
  edges: { from: string; to: string }[];
  positions: Record<string, { x: number; y: number }>;
}

export type DesignTraceLoad =
  | { status: 'idle' }
  | { status: 'loading'; id: string }
  | { status: 'ready'; trace: Trace }
  | { status: 'error'; id: string; message: string };

/** What the page has chosen as its design. */
export interface DesignChoice {
  designMode: DesignMode;
  designTrace: DesignTraceLoad;
  designText: string;
  draft: Draft;
}

/** What the chosen design amounts to now: the design when valid, else everything wrong with it. */
export interface DesignCheck {
  design: Design | null;
  /** Reading problems (XML/JSON) and "nothing chosen yet". */
  problems: string[];
  violations: Violation[];
}

/** The draft as a raw design: low Degree of MAS for a lone agent, high otherwise. */
export function draftDesign(draft: Draft): RawDesign {
  return {
    dom: draft.agents.length <= 1 && draft.edges.length === 0 ? 'low' : 'high',
    agents: draft.agents,
    edges: draft.edges,
  };
}

export function checkRaw(raw: RawDesign): DesignCheck {
  const violations = validateDesign(raw);
  return { design: violations.length === 0 ? toDesign(raw) : null, problems: [], violations };
}

/** Validates whichever design the page has chosen, with the same validator as files and the CLI. */
export function checkDesign(s: DesignChoice): DesignCheck {
  switch (s.designMode) {
    case 'trace':
      if (s.designTrace.status !== 'ready')
        return { design: null, problems: ['Choose a trace whose design to run.'], violations: [] };
      return checkRaw(fromDesign(s.designTrace.trace.design));
    case 'paste': {
      if (s.designText.trim() === '')
        return { design: null, problems: ['Paste a design (XML or JSON).'], violations: [] };
      const report = parseDesign(s.designText);
      // Text the reader skips over entirely (e.g. a broken tag) can come back as an empty design:
      // there is nothing to run, so say so instead of showing an empty problem list.
      if (report.design && report.design.agents.length === 0 && report.design.directAnswer === undefined)
        return { design: null, problems: ['No agent could be read from this text.'], violations: [] };
      return { design: report.design, problems: report.problems, violations: report.violations };
    }
    case 'draw':
      if (s.draft.agents.length === 0)
        return { design: null, problems: ['Add at least one agent.'], violations: [] };
      return checkRaw(draftDesign(s.draft));
  }
}

/** What switching from Paste to Draw did with the pasted text (shown above the drawing). */
export type PasteCarry =
  | { kind: 'carried'; agents: number; edges: number }
  | { kind: 'kept-drawing'; agents: number; edges: number }
  | { kind: 'invalid' };

/**
 * What switching Paste → Draw does with the pasted text: a valid design goes into an empty drawing
 * (`carried`); a drawing the user already has is never replaced unasked (`kept-drawing`: the page
 * offers to replace it); text that is no valid design leaves the drawing as it is (`invalid`).
 * Null when nothing was pasted. Pure.
 */
export function pasteCarry(
  designText: string,
  draft: Draft,
): { carry: PasteCarry; design: Design | null } | null {
  if (designText.trim() === '') return null;
  const check = checkDesign({ designMode: 'paste', designTrace: { status: 'idle' }, designText, draft });
  if (!check.design || check.design.agents.length === 0) return { carry: { kind: 'invalid' }, design: null };
  const size = { agents: check.design.agents.length, edges: check.design.edges.length };
  return draft.agents.length === 0
    ? { carry: { kind: 'carried', ...size }, design: check.design }
    : { carry: { kind: 'kept-drawing', ...size }, design: check.design };
}
