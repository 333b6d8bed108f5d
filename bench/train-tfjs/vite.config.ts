import { defineConfig } from 'vite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Builds the benchmark page (bench/train-tfjs/page) on its own, away from the app's build; the output
// goes to the system temp directory so it never lands in the tree (or in lint and format runs).
export default defineConfig({
  root: fileURLToPath(new URL('./page', import.meta.url)),
  base: './',
  logLevel: 'warn',
  build: {
    outDir: join(tmpdir(), 'baton-train-tfjs-bench'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 4000,
  },
  preview: { host: '127.0.0.1', port: 4181, strictPort: false },
});
