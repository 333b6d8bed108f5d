import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { serveStatic } from './static-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

/** Serves dist/ (run `vite build` first; `npm test` does) for every e2e file. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync('dist/index.html'))
    throw new Error('dist/ is missing: run `npx vite build` before the e2e tests.');
  const { url, server } = await serveStatic('dist');
  project.provide('baseUrl', url);
  return () => new Promise((ok) => server.close(() => ok()));
}
