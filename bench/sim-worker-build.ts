/**
 * One esbuild bundle of the simulator pool's Node worker (src/workers/sim.node-worker.ts), as a page
 * or the packed device benchmark runs it (from the sources through tsx it runs slower): for
 * `npm run bench:sim-pool` and for the packed folder (bench/device/pack.ts).
 */
import { build } from 'esbuild';

export async function buildSimWorker(outfile: string): Promise<void> {
  await build({
    entryPoints: [new URL('../src/workers/sim.node-worker.ts', import.meta.url).pathname],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
}
