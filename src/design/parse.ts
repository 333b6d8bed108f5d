import type { Design } from '../core/trace.ts';
import { parseDesignJson } from './json.ts';
import type { RawDesign } from './raw.ts';
import { toDesign, validateDesign, type Violation } from './validate.ts';
import { designTooLong, MAX_DESIGN_CHARS, parseDesignXml } from './xml.ts';

export interface DesignReport {
  /** What could be read (null when nothing could). */
  raw: RawDesign | null;
  /** The validated design; null when there are parse problems or violations. */
  design: Design | null;
  /** Reading problems (malformed XML/JSON), before any rule is checked. */
  problems: string[];
  violations: Violation[];
}

/**
 * Reads a design in either format (JSON when the text starts with `{`, XML otherwise) and checks
 * every rule. Total: whatever the string, it returns a report and never throws.
 */
export function parseDesign(text: unknown, dom?: 'low' | 'high'): DesignReport {
  if (typeof text !== 'string') {
    return { raw: null, design: null, problems: ['Expected the design as text.'], violations: [] };
  }
  if (text.length > MAX_DESIGN_CHARS * 4) {
    return {
      raw: null,
      design: null,
      problems: [designTooLong(text.length, MAX_DESIGN_CHARS * 4)],
      violations: [],
    };
  }
  try {
    const { design: raw, problems } = text.trimStart().startsWith('{')
      ? parseDesignJson(text, dom)
      : parseDesignXml(text, dom);
    if (!raw) return { raw: null, design: null, problems, violations: [] };
    const violations = validateDesign(raw);
    const design = problems.length === 0 && violations.length === 0 ? toDesign(raw) : null;
    return { raw, design, problems, violations };
  } catch (e) {
    // Defensive: the readers above are written not to throw; if one does, say so instead of crashing.
    return {
      raw: null,
      design: null,
      problems: [`Internal error while reading the design: ${e instanceof Error ? e.message : String(e)}`],
      violations: [],
    };
  }
}

/** One line per problem and violation, as the CLI and the UI print them. */
export function formatReport(report: DesignReport): string[] {
  return [
    ...report.problems.map((p) => `parse error: ${p}`),
    ...report.violations.map((v) => `rule ${v.rule}: ${v.message}`),
  ];
}
