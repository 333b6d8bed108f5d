import { defineConfig } from 'vitest/config';

// End-to-end tests: the real built app (dist/) served over HTTP, driven in Debian's Chromium.
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.ts'],
    environment: 'node',
    globalSetup: ['tests/e2e/global-setup.ts'],
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // One browser at a time: the machine has two cores and the software WebGPU adapter is slow.
    fileParallelism: false,
  },
});
