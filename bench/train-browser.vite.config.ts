import { defineConfig } from 'vite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builds the training benchmark page (bench/train-browser) on its own, into the system temp
// directory so it never lands in the tree; the worker is an ES module like the app's workers.
export default defineConfig({
  root: fileURLToPath(new URL('./train-browser', import.meta.url)),
  base: './',
  logLevel: 'warn',
  worker: { format: 'es' },
  build: {
    outDir: join(tmpdir(), 'baton-train-bench'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
  },
  preview: { host: '127.0.0.1', port: 4181, strictPort: false },
});
