/**
 * Lets Node import the compute core's `*.wgsl?raw` kernel sources (Vite does this in the app and
 * in vitest), so commands can run the WebGPU backend from the command line. Registered once per
 * process, and only when a command is about to use WebGPU: the CPU path never needs it.
 */
import { register } from 'node:module';

const HOOKS = `
import { readFile } from 'node:fs/promises';
export async function load(url, context, next) {
  if (url.startsWith('file:') && /\\.wgsl(\\?raw)?$/.test(url)) {
    const file = new URL(url);
    file.search = '';
    return { format: 'module', source: 'export default ' + JSON.stringify(await readFile(file, 'utf8')) + ';', shortCircuit: true };
  }
  return next(url, context);
}`;

let registered = false;

export function allowWgslImports(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOKS)}`);
}
