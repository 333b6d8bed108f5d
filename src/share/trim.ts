import type { Trace, TraceEvent } from '../core/trace.ts';

/**
 * Shortening long texts so a trace fits in a link. Only the bulky free text is cut — LLM outputs,
 * chat messages, agent inputs/outputs/notes/errors, the designer's prompt and raw output, the
 * design's thinking — never ids, the task, the design's structure or the final answer, so a
 * trimmed trace still shows the same run. The rendered diagram, which the viewer can redraw from
 * the design, is dropped whole, unless the caller keeps it (for a design that exists only as
 * that diagram; see `designOnlyInDiagram` in link.ts).
 */

export interface TrimCount {
  fields: number;
  charsRemoved: number;
}

export const trimMarker = (removed: number): string => ` … [${removed} characters trimmed]`;

/** A field is cut only when that saves more than the marker adds. */
const MIN_SAVING = 40;

export function trimText(text: string, max: number, count: TrimCount): string {
  if (text.length <= max + MIN_SAVING) return text;
  let keep = Math.max(0, Math.floor(max));
  // Do not split a surrogate pair: a lone half would not survive UTF-8.
  const last = text.charCodeAt(keep - 1);
  if (keep > 0 && last >= 0xd800 && last <= 0xdbff) keep -= 1;
  const removed = text.length - keep;
  count.fields += 1;
  count.charsRemoved += removed;
  return text.slice(0, keep) + trimMarker(removed);
}

function trimEvent(e: TraceEvent, max: number, c: TrimCount): TraceEvent {
  switch (e.type) {
    case 'agent.start':
      return { ...e, input: trimText(e.input, max, c) };
    case 'llm.call':
      return {
        ...e,
        messages: e.messages.map((m) => ({ ...m, content: trimText(m.content, max, c) })),
        output: trimText(e.output, max, c),
      };
    case 'agent.note':
      return { ...e, text: trimText(e.text, max, c) };
    case 'agent.end':
      return { ...e, output: trimText(e.output, max, c) };
    case 'agent.error':
      return { ...e, error: trimText(e.error, max, c), placeholder: trimText(e.placeholder, max, c) };
    case 'run.end':
      return e;
  }
}

export interface TrimOptions {
  /** Keep `trace.diagram` instead of dropping it (default false). */
  keepDiagram?: boolean;
}

/**
 * Returns a copy of `trace` with every long text cut to `max` characters (plus a marker saying
 * how much was cut), and `trace.trimmed` increased by what was cut. `count` is null when nothing
 * needed cutting.
 */
export function trimTrace(
  trace: Trace,
  max: number,
  options: TrimOptions = {},
): { trace: Trace; count: TrimCount | null } {
  const c: TrimCount = { fields: 0, charsRemoved: 0 };
  const designer =
    trace.designer.kind === 'orchestrator'
      ? {
          ...trace.designer,
          ...(trace.designer.prompt !== undefined ? { prompt: trimText(trace.designer.prompt, max, c) } : {}),
          ...(trace.designer.rawOutput !== undefined
            ? { rawOutput: trimText(trace.designer.rawOutput, max, c) }
            : {}),
        }
      : trace.designer;
  const design =
    trace.design.thinking !== undefined
      ? { ...trace.design, thinking: trimText(trace.design.thinking, max, c) }
      : trace.design;
  const construction = trace.construction.map((s) =>
    typeof s.intermediateAnswer === 'string'
      ? { ...s, intermediateAnswer: trimText(s.intermediateAnswer, max, c) }
      : s,
  );
  const events = trace.execution.events.map((e) => trimEvent(e, max, c));
  const { diagram, ...withoutDiagram } = trace;
  const rest = options.keepDiagram === true ? trace : withoutDiagram;
  if (diagram !== undefined && options.keepDiagram !== true) {
    c.fields += 1;
    c.charsRemoved += diagram.length;
  }
  if (c.fields === 0) return { trace, count: null };
  const before = trace.trimmed ?? { fields: 0, charsRemoved: 0 };
  return {
    trace: {
      ...rest,
      designer,
      design,
      construction,
      execution: { ...trace.execution, events },
      trimmed: { fields: before.fields + c.fields, charsRemoved: before.charsRemoved + c.charsRemoved },
    },
    count: c,
  };
}
