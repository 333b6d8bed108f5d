import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recoverDesign } from '../../src/importers/recover.ts';
import type { Corpus, FuzzTarget } from './fuzz.ts';

/**
 * The design-recovery parser (src/importers/recover.ts) under the fuzz harness (tests/support/
 * fuzz.ts): a target that reads every input as an orchestrator's text, and seed texts for the
 * mutators (drafted agent blocks with and without `<agent>` wrappers, redrafts, a cut-off draft,
 * edge blocks, debate roles). A recovery that finds nothing must say why.
 */
export const recoverTarget: FuzzTarget = {
  name: 'recoverDesign',
  run: (input) => {
    const r = recoverDesign(input);
    if (!r.ok) return { ok: false, messages: [r.reason] };
    // A recovered design must be what it claims to be.
    if (r.recovery.agents !== r.design.agents.length || r.recovery.edges !== r.design.edges.length) {
      throw new Error('recovery counts do not match the design');
    }
    return { ok: true };
  },
};

const FIXTURE = join(
  import.meta.dirname,
  '../fixtures/importers/qwen2.5_7b_oss_20b_high_depth3.diagram-only.json',
);

/** The orchestrator texts of the diagram-only fixture, as design seeds, and the file as an import seed. */
export function withThinkingSamples(corpus: Corpus): Corpus {
  const text = readFileSync(FIXTURE, 'utf8');
  const slides = JSON.parse(text) as { thinking: string; image: string }[];
  // With a stub diagram, so mutations land in the text rather than in base64.
  const light = slides.map((s) => ({
    ...s,
    image: s.image === '' ? '' : 'data:image/png;base64,iVBORw0KGgo=',
  }));
  return {
    ...corpus,
    designs: [...corpus.designs, ...slides.map((s) => s.thinking)],
    imports: [
      ...corpus.imports,
      { text: JSON.stringify(light), fileName: 'qwen2.5_7b_oss_20b_high_depth3.json' },
    ],
  };
}
