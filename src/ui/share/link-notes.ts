import type { Trace } from '../../core/trace.ts';
import { designOnlyInDiagram, type EncodedLink } from '../../share/index.ts';

/**
 * What the share dialog says a link lacks, besides trimmed texts. A trace whose design exists
 * only as its source's diagram (a MAS-Orchestra slide with no published code) has nothing else
 * to show the design by, and such diagrams are far larger than a link can carry; the dialog says
 * so plainly and offers the file instead.
 */
export interface LinkNotes {
  /** A warning: this link opens with no design at all. */
  noDesign: string | null;
  /** Added to the over-budget advice: what a smaller link would lose. */
  smallerLoses: string | null;
  /** A quiet remark: the diagram is left out, the design is intact. */
  diagramLeftOut: string | null;
}

export function linkNotes(trace: Trace, link: EncodedLink): LinkNotes {
  const dropped = link.droppedDiagram;
  const diagramOnly = designOnlyInDiagram(trace);
  return {
    noDesign:
      dropped?.onlyRecordOfDesign === true
        ? `This trace's design exists only as the diagram from its source, and the diagram (${dropped.chars.toLocaleString('en-US')} characters) is too large for a link, so the link leaves it out: whoever opens it sees the task and the answer but no design. Download the JSON file to share the diagram too.`
        : null,
    smallerLoses:
      diagramOnly && dropped === null && link.overBudget
        ? "A smaller link would leave out the diagram, which is the only record of this trace's design."
        : null,
    diagramLeftOut:
      dropped !== null && !dropped.onlyRecordOfDesign
        ? 'The diagram from the source is left out; the viewer draws the design from its agents.'
        : null,
  };
}
