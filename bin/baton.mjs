#!/usr/bin/env node
// Runs the TypeScript CLI in src/cli with tsx, so the CLI and the app share the same code.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { main } = await import(join(root, 'src/cli/main.ts'));
const code = await main(process.argv.slice(2), {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
  cwd: process.cwd(),
});
process.exitCode = code;
