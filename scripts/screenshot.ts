/**
 * Writes docs/screenshot.png: the built app (dist/) showing a bundled example on the trace page
 * with an agent selected. Run `npx vite build` first, then `npx tsx scripts/screenshot.ts`.
 */
import { chromium } from 'playwright-core';
import { serveStatic } from '../tests/e2e/static-server.ts';

const { url, server } = await serveStatic('dist');
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--headless=new',
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 880 } });
  await page.goto(`${url}#/trace/example-parallel-branches`);
  await page.locator('[data-testid="agent-node"][data-agent-id="sacks"]').click();
  await page.locator('[data-testid="llm-call"]').first().waitFor();
  await page.waitForTimeout(500);
  await page.screenshot({ path: 'docs/screenshot.png' });
  process.stdout.write('wrote docs/screenshot.png\n');
} finally {
  await browser.close();
  server.close();
}
