/**
 * Writes the bundled gallery examples to public/examples/ (one trace per file plus index.json).
 * Run: `npm run examples`. A unit test checks the committed files equal what this produces.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildExamples } from './examples/examples.ts';
import { exampleFiles } from './examples/files.ts';

const dir = join(process.cwd(), 'public', 'examples');
mkdirSync(dir, { recursive: true });
for (const [name, text] of Object.entries(exampleFiles(await buildExamples()))) {
  writeFileSync(join(dir, name), text);
  process.stdout.write(`wrote public/examples/${name}\n`);
}
