/**
 * Writes a tiny model folder with random weights (a loading fixture, not a model: its output is
 * noise) in the transformers.js layout, and prints each file's size and the folder's check.
 * Run: `npx tsx scripts/export-tiny-model.ts --out <dir> [--seed 1] [--config '{"vocabSize":…}']
 * [--dtypes fp32,q8,q4]`. The trained orchestrator's folder is written by its training script with
 * the same `modelFolderFiles`.
 */
import { parseArgs } from 'node:util';
import { TinyGptConfigSchema, checkOnnxModel, paramCount, type ExportDtype } from '../src/lm/index.ts';
import { FIXTURE_CONFIG, tinyModelFiles, writeFolder } from '../tests/support/tiny-model.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string' },
    seed: { type: 'string', default: '1' },
    config: { type: 'string' },
    dtypes: { type: 'string', default: 'fp32,q8,q4' },
  },
});
if (!values.out) {
  process.stderr.write(
    'usage: export-tiny-model.ts --out <dir> [--seed N] [--config JSON] [--dtypes fp32,q8,q4]\n',
  );
  process.exit(2);
}
const config = values.config ? TinyGptConfigSchema.parse(JSON.parse(values.config)) : FIXTURE_CONFIG;
const dtypes = values.dtypes.split(',').map((d) => d.trim()) as ExportDtype[];
for (const d of dtypes) {
  if (!['fp32', 'q8', 'q4'].includes(d)) throw new Error(`unknown dtype ${d}`);
}
const { files } = tinyModelFiles({ config, seed: Number(values.seed), dtypes });
writeFolder(values.out, files);
process.stdout.write(`${paramCount(config)} parameters, config ${JSON.stringify(config)}\n`);
for (const [path, data] of files) {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data).length : data.length;
  const check =
    typeof data === 'string'
      ? ''
      : checkOnnxModel(data, { config }).ok
        ? '  (checkOnnxModel: ok)'
        : '  (checkOnnxModel: FAILED)';
  process.stdout.write(`${String(bytes).padStart(10)}  ${path}${check}\n`);
}
