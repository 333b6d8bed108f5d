/**
 * The one place that says how Baton launches Debian's Chromium (flags from ENVIRONMENT.md): e2e
 * tests (tests/e2e/browser.ts), benchmarks in bench/ and scripts/page-screenshots.ts import it.
 * Free of vitest, so plain tsx scripts can use it.
 */
import { chromium, type Browser } from 'playwright-core';

/** WebGPU on SwiftShader, and no background network (the network is closed). */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Extra flags needed to present WebGPU frames on a canvas with SwiftShader. */
export const CANVAS_WEBGPU_ARGS = [
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
];

/** `CHROMIUM_PATH` or /usr/bin/chromium, with `CHROMIUM_ARGS` and `extraArgs`. */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, ...extraArgs],
    headless: true,
  });
}
