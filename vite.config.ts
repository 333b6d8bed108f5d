import { createReadStream, existsSync, statSync } from 'node:fs';
import { cp, mkdir, copyFile } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The in-tab orchestrator works offline: transformers.js would fetch onnxruntime-web's wasm build
 * from a CDN and the models from the hub, so this build serves both itself. `ort/` holds the two
 * onnxruntime-web files the orchestrator worker points `wasmPaths` at (the WebGPU+wasm "asyncify"
 * build), `models/` the model manifest and the project's own model folders. `vite` serves them from
 * node_modules and models/; `vite build` copies them into dist/.
 */
const ORT_DIR = resolve('node_modules/onnxruntime-web/dist');
const ORT_FILES = ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];
const MODELS_DIR = resolve('models');
const TYPES: Record<string, string> = {
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.onnx': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
};

/** The headers that make a page cross-origin isolated. */
const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

function offlineModelFiles(): Plugin {
  return {
    name: 'baton-offline-model-files',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
        let file: string | null = null;
        if (path.startsWith('/ort/') && ORT_FILES.includes(path.slice(5)))
          file = join(ORT_DIR, path.slice(5));
        else if (path.startsWith('/models/')) {
          const f = normalize(join(MODELS_DIR, path.slice(8)));
          if (f.startsWith(MODELS_DIR + sep)) file = f;
        }
        if (!file || !existsSync(file) || !statSync(file).isFile()) return next();
        res.writeHead(200, {
          ...ISOLATION_HEADERS,
          'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
          'content-length': String(statSync(file).size),
        });
        createReadStream(file).pipe(res);
      });
    },
    async writeBundle(options) {
      const out = resolve(options.dir ?? 'dist');
      await mkdir(join(out, 'ort'), { recursive: true });
      for (const f of ORT_FILES) await copyFile(join(ORT_DIR, f), join(out, 'ort', f));
      if (existsSync(MODELS_DIR)) await cp(MODELS_DIR, join(out, 'models'), { recursive: true });
    },
  };
}

// The app is a static site: `vite build` writes dist/, which any static host can serve.
// `base: './'` keeps every asset URL relative so the build also works from a sub-path.
export default defineConfig({
  base: './',
  plugins: [react(), offlineModelFiles()],
  worker: { format: 'es' },
  // @mlc-ai/web-xgrammar is a UMD bundle in a `"type": "module"` package: pre-bundled by esbuild it
  // becomes CommonJS and no longer sets `globalThis.xgrammar`, which src/orchestrator/constrain reads.
  // Served as it is, it runs as an ES module and sets it (as in the production build).
  optimizeDeps: { exclude: ['@mlc-ai/web-xgrammar'] },
  build: {
    target: 'es2022',
    sourcemap: true,
    // dist/.vite/manifest.json: which chunks each module loads, read by scripts/check-size.mjs to hold
    // the first page (the gallery) to its JavaScript budget, 250 kB gzip.
    manifest: true,
    // Vite's default (500 kB minified) would warn about the entry (about 570 kB, React DOM and zod are
    // most of it); the budget that matters is enforced by the size check, which `npm test` runs.
    chunkSizeWarningLimit: 600,
  },
  // Cross-origin isolation (SharedArrayBuffer, so the wasm backend's second matmul thread): every
  // response of the dev server and of `vite preview` carries COOP/COEP. A static host must send the
  // same two headers for threads (docs/compute-core.md); without them the app runs on one thread.
  server: { host: '127.0.0.1', headers: ISOLATION_HEADERS },
  preview: { headers: ISOLATION_HEADERS },
});
