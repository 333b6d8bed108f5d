import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The app is a static site: `vite build` writes dist/, which any static host can serve.
// `base: './'` keeps every asset URL relative so the build also works from a sub-path.
export default defineConfig({
  base: './',
  plugins: [react()],
  worker: { format: 'es' },
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
  server: { host: '127.0.0.1' },
});
