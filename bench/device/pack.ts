/**
 * `npm run bench:device [-- --quick] [--out DIR]`: packs the device benchmark into one folder that
 * a bare Linux x64 GPU machine (a driver, nothing else) can run, then, with --quick, runs it here
 * (SwiftShader) from the packed folder. The folder (default dist/device-bench):
 * - node.gz: this Node binary (process.execPath), gzipped; run.sh unpacks it;
 * - node_modules/webgpu: the `webgpu` package's JS and its Linux x64 Dawn build (dawn.node.gz);
 * - bench.mjs: one esbuild bundle of bench/device/run.ts with the compute core (.wgsl as text) and
 *   TF.js (its WebGPU backend runs on the same Dawn device through a navigator.gpu shim);
 * - lib/: the Vulkan loader and libglvnd's libraries NVIDIA's Vulkan driver loads (each used only
 *   when the machine has none);
 * - torch_ceiling.py: the same matmul and MLP step in PyTorch (CUDA when present), the native ceiling;
 * - run.sh: unpacks, finds an NVIDIA Vulkan ICD (VK_ICD_FILENAMES), writes results/*.json;
 * - README.md: how to run it on a bare NVIDIA machine, and what the JSON holds.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { buildSimWorker, wgslText } from '../sim-worker-build.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const outArg = argv.indexOf('--out');
const out = resolve(outArg >= 0 ? (argv[outArg + 1] as string) : join(root, 'dist/device-bench'));
const LIMIT_MB = 60;

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'node_modules/webgpu/dist/linux-x64'), { recursive: true });
mkdirSync(join(out, 'lib'), { recursive: true });
mkdirSync(join(out, 'results'), { recursive: true });

await build({
  entryPoints: [join(root, 'bench/device/run.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: join(out, 'bench.mjs'),
  external: ['webgpu'],
  plugins: [wgslText],
  minify: true,
  legalComments: 'none',
  banner: {
    js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
  },
  logLevel: 'warning',
});

// The simulator pool's worker (src/workers/sim-pool.ts), beside the bundle: run.ts starts it.
await buildSimWorker(join(out, 'sim-worker.mjs'));
await buildSimWorker(join(out, 'rollout-worker.mjs'), 'rollout');

const gz = (from: string, to: string): void => writeFileSync(to, gzipSync(readFileSync(from), { level: 9 }));
gz(process.execPath, join(out, 'node.gz'));
const wg = join(root, 'node_modules/webgpu');
for (const f of ['index.js', 'package.json', 'LICENSE.md'])
  copyFileSync(join(wg, f), join(out, 'node_modules/webgpu', f));
gz(join(wg, 'dist/linux-x64/dawn.node'), join(out, 'node_modules/webgpu/dist/linux-x64/dawn.node.gz'));
// The Vulkan loader and libglvnd's libraries: NVIDIA's Vulkan driver (libGLX_nvidia.so.0) needs
// libGLdispatch and libGLX, which a bare driver-only machine may lack (vkCreateInstance then fails
// with VK_ERROR_INCOMPATIBLE_DRIVER). run.sh uses each only where the machine has none.
const LIBS = [
  'libvulkan.so.1',
  'libGLdispatch.so.0',
  'libGLX.so.0',
  'libEGL.so.1',
  'libGL.so.1',
  'libOpenGL.so.0',
];
for (const lib of LIBS) {
  const from = ['/usr/lib/x86_64-linux-gnu', '/lib/x86_64-linux-gnu']
    .map((d) => join(d, lib))
    .find(existsSync);
  if (from) copyFileSync(from, join(out, 'lib', lib));
  else
    console.warn(
      `no ${lib} here: run.sh relies on the machine's (apt-get download libvulkan1 libglvnd0 libglx0)`,
    );
}
copyFileSync(join(root, 'bench/device/torch_ceiling.py'), join(out, 'torch_ceiling.py'));
copyFileSync(join(root, 'bench/device/run.sh'), join(out, 'run.sh'));
copyFileSync(join(root, 'bench/device/README.md'), join(out, 'README.md'));
chmodSync(join(out, 'run.sh'), 0o755);

const bytes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce(
    (a, e) => a + (e.isDirectory() ? bytes(join(dir, e.name)) : statSync(join(dir, e.name)).size),
    0,
  );
const mb = bytes(out) / 2 ** 20;
console.log(`packed ${out}: ${mb.toFixed(1)} MiB${mb > LIMIT_MB ? ` — over the ${LIMIT_MB} MiB limit` : ''}`);
if (mb > LIMIT_MB) process.exitCode = 1;
if (quick) {
  const t0 = Date.now();
  execFileSync(join(out, 'run.sh'), ['--quick'], { stdio: 'inherit' });
  console.log(
    `run.sh --quick finished in ${((Date.now() - t0) / 1000).toFixed(0)} s; results in ${join(out, 'results')}`,
  );
}
