import type { ExampleEntry } from './examples.ts';

/** File name → file text for public/examples/, including the index.json manifest. */
export function exampleFiles(examples: readonly ExampleEntry[]): Record<string, string> {
  const files: Record<string, string> = {};
  const NOTE =
    'Illustrative trace written by hand for the gallery; token counts and latencies are not measurements.';
  const GENERATED_NOTE = 'A simulation, not a run of a language model.';
  for (const e of examples) files[e.file] = JSON.stringify(e.trace, null, 1) + '\n';
  files['index.json'] =
    JSON.stringify(
      {
        examples: examples.map((e) => ({
          file: e.file,
          title: e.title,
          summary: `${e.summary} ${e.generated ? GENERATED_NOTE : NOTE}`,
          tags: e.tags,
        })),
      },
      null,
      2,
    ) + '\n';
  return files;
}
