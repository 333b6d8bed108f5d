/**
 * One esbuild bundle of the simulator pool's Node worker (src/workers/sim.node-worker.ts) or of the
 * rollout pool's (rollout.node-worker.ts), as a page or the packed device benchmark runs it (from
 * the sources through tsx it runs slower): for `npm run bench:sim-pool`, `bench:rollout-pool` and
 * the packed folder (bench/device/pack.ts).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { build, type Plugin } from 'esbuild';

/** `*.wgsl?raw` (Vite's text import) and `*.wgsl` as strings. */
export const wgslText: Plugin = {
  name: 'wgsl-text',
  setup(b) {
    b.onResolve({ filter: /\.wgsl(\?raw)?$/ }, (a) => ({
      path: resolve(a.resolveDir, a.path.replace(/\?raw$/, '')),
      namespace: 'wgsl',
    }));
    b.onLoad({ filter: /.*/, namespace: 'wgsl' }, (a) => ({
      contents: readFileSync(a.path, 'utf8'),
      loader: 'text',
    }));
  },
};

export async function buildSimWorker(outfile: string, worker: 'sim' | 'rollout' = 'sim'): Promise<void> {
  await build({
    entryPoints: [new URL(`../src/workers/${worker}.node-worker.ts`, import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    // The rollout worker's CPU-side backends sit beside the WebGPU one it never loads.
    plugins: [wgslText],
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}
