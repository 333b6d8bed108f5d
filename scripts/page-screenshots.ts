/**
 * Writes the page screenshots the docs show, from the built app (dist/) at 1440 × 900:
 * - docs/trace-imported.png: a MAS-Orchestra case-page run (outcome only) on the trace page;
 * - docs/trace-recovered.png: a diagram-only MAS-Orchestra slide: the design recovered from the
 *   orchestrator's text (with its "recovered" badge) beside the page's diagram;
 * - docs/trace-construction.png: construction replay at step 3 of the MasHost example;
 * - docs/run-page.png: the Run page after a simulated run of an example's design;
 * - docs/build-page.png: the Build page after three steps, a reward opened to its terms and a pick
 *   waiting for Step;
 * - docs/gallery-recents.png: the gallery's recent traces (collections, filters, storage note)
 *   after importing a case page;
 * - docs/screenshot.png (README): the parallel example on the trace page with an agent selected,
 *   at 1440 × 880;
 * - docs/train-page.png: the Train page paused after 8 iterations of the mixed preset, at 1440 × 1100;
 * - docs/train-orchestrator.png: the Train page's Orchestrator LM mode paused after 4 GRPO
 *   iterations of the shipped offline model (B 2 × G 4), with a held-out before/after, at 1440 × 1600;
 * - docs/train-orchestrator-shared.png: that run's "Share link" opened in a new page (read-only:
 *   model, backend, weights note, charts, evaluation, sampled designs, config), at 1440 × 1600;
 * - docs/orchestrate-page.png: the Orchestrate page after the shipped offline model wrote a
 *   constrained design for a MASBench depth-3 task on wasm, at 1440 × 1000;
 * - docs/orchestrate-provider.png: the Orchestrate page with the Settings provider as the
 *   orchestrator (the local OpenAI-wire test server, scripted: five broken designs, then a valid
 *   one, five repair turns), its attempts listed, at 1440 × 1300.
 * Run `npx vite build` first, then `npx tsx scripts/page-screenshots.ts`.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { importText } from '../src/importers/index.ts';
import { launchChromium } from '../tests/support/chromium.ts';
import { serveStatic } from '../tests/e2e/static-server.ts';
import { designScriptResponder } from '../tests/server/design-script.ts';
import { defaultResponder, startOpenAIServer } from '../tests/server/openai-server.ts';

const CASE_PAGE = resolve('tests/fixtures/importers/case-page.html');
const DIAGRAM_ONLY = resolve('tests/fixtures/importers/qwen2.5_7b_oss_20b_high_depth3.diagram-only.json');

const { url, server } = await serveStatic('dist');
// WebGPU is not needed for these pictures; the flags are the e2e tests' own.
const browser = await launchChromium();

async function shot(page: Page, file: string): Promise<void> {
  await page.waitForTimeout(500);
  await page.screenshot({ path: file });
  process.stdout.write(`wrote ${file}\n`);
}

/** The import notice is not what these pictures are about. */
async function dismissNotice(page: Page): Promise<void> {
  const report = page.locator('[data-testid="import-report"] button', { hasText: 'Dismiss' });
  if ((await report.count()) > 0) await report.first().click();
}

try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.locator('[data-testid="file-input"]').setInputFiles(CASE_PAGE);
  await page.locator('[data-testid="trace-page"]').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="agent-node"]').length > 1);
  await dismissNotice(page);
  await shot(page, 'docs/trace-imported.png');

  // A diagram-only case file: its first slide, whose design is recovered from the orchestrator's text.
  await page.goto(`${url}#/`);
  await page.locator('[data-testid="file-input"]').setInputFiles(DIAGRAM_ONLY);
  await page.locator('[data-testid="import-count"]').waitFor();
  const firstSlide = importText(readFileSync(DIAGRAM_ONLY, 'utf8'), basename(DIAGRAM_ONLY));
  const recoveredId =
    firstSlide.ok && firstSlide.items[0]?.result.ok ? firstSlide.items[0].result.value.id : null;
  if (recoveredId === null) throw new Error(`${DIAGRAM_ONLY} does not import`);
  await page.goto(`${url}#/trace/${recoveredId}`);
  await page.locator('[data-testid="trace-recovered-badge"]').waitFor();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="agent-node"]').length === 3);
  await dismissNotice(page);
  await shot(page, 'docs/trace-recovered.png');

  await page.goto(`${url}#/trace/example-mashost-construction`);
  await page.locator('[data-testid="replay-position"]').waitFor();
  await page.keyboard.press('Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await page.locator('[data-testid="edge-p-label"]').first().waitFor();
  await shot(page, 'docs/trace-construction.png');

  await page.goto(`${url}#/run`);
  await page.locator('[data-testid="run-page"]').waitFor();
  await page.check('[data-testid="run-backend-simulator"]');
  await page.check('[data-testid="run-design-trace"]');
  await page.waitForSelector(
    '[data-testid="run-design-trace-select"] option[value="example-parallel-branches"]',
    {
      state: 'attached',
    },
  );
  await page.selectOption('[data-testid="run-design-trace-select"]', 'example-parallel-branches');
  await page.locator('[data-testid="design-valid"]').waitFor();
  await page.click('[data-testid="run-start"]');
  await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
  await page.click('[data-testid="nav-run"]');
  await page.locator('[data-testid="run-final"]').waitFor();
  await shot(page, 'docs/run-page.png');

  // The Build page: three steps on the simulator, the first reward opened, a pick waiting for Step.
  await page.goto(`${url}#/build`);
  await page.locator('[data-testid="build-start"]').click();
  await page.locator('[data-testid="dist-bar"]').first().waitFor();
  for (const [key, n] of [
    ['s', 1],
    ['s', 2],
    ['g', 3],
  ] as const) {
    await page.keyboard.press(key);
    await page.waitForFunction(
      (want) => document.querySelectorAll('[data-testid="step-reward-detail"]').length >= want,
      n,
    );
  }
  await page.locator('[data-testid="step-reward-detail"] summary').first().click();
  await page.locator('[data-testid="dist-bar"][data-action="Verifier"]').click();
  await page.locator('[data-testid="build-pick-pending"]').waitFor();
  await shot(page, 'docs/build-page.png');

  await page.goto(`${url}#/`);
  // The recent traces: collections, filters, the storage note and the list.
  await page.locator('[data-testid="recents"]').waitFor();
  const recents = page.locator('section[aria-labelledby="recents-heading"]');
  await recents.scrollIntoViewIfNeeded();
  await page.waitForTimeout(300);
  await recents.screenshot({ path: 'docs/gallery-recents.png' });
  process.stdout.write('wrote docs/gallery-recents.png\n');

  const readme = await browser.newPage({ viewport: { width: 1440, height: 880 } });
  await readme.goto(`${url}#/trace/example-parallel-branches`);
  await readme.locator('[data-testid="agent-node"][data-agent-id="sacks"]').click();
  await readme.locator('[data-testid="llm-call"]').first().waitFor();
  await shot(readme, 'docs/screenshot.png');

  // The Train page after a few iterations of the mixed preset from the prior (simulated sub-agents).
  const train = await browser.newPage({ viewport: { width: 1440, height: 1100 } });
  await train.goto(`${url}#/train`);
  await train.locator('[data-testid="train-page"]').waitFor();
  await train.click('[data-testid="train-start"]');
  await train.waitForFunction(
    () => Number(document.querySelector('[data-testid="train-iteration"]')?.textContent) >= 8,
    null,
    { timeout: 120_000 },
  );
  await train.click('[data-testid="train-pause"]');
  await train.waitForFunction(
    () => document.querySelector('[data-testid="train-status"]')?.getAttribute('data-status') === 'paused',
  );
  await train.locator('[data-testid="train-start"]').scrollIntoViewIfNeeded();
  await shot(train, 'docs/train-page.png');

  // The Orchestrator LM mode: a few GRPO iterations of the shipped model, then before/after.
  const grpo = await browser.newPage({ viewport: { width: 1440, height: 1600 } });
  await grpo.goto(`${url}#/train`);
  await grpo.click('[data-testid="train-mode-orchestrator"]');
  await grpo.locator('[data-testid="orch-setup"]').waitFor();
  await grpo.fill('[data-testid="orch-field-iterations"]', '4');
  await grpo.fill('[data-testid="orch-field-evalTasks"]', '4');
  await grpo.click('[data-testid="orch-start"]');
  await grpo.waitForFunction(
    () => document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status') === 'paused',
    undefined,
    { timeout: 300_000 },
  );
  await grpo.click('[data-testid="orch-evaluate"]');
  await grpo.locator('[data-testid="orch-eval-table"]').waitFor({ timeout: 300_000 });
  await shot(grpo, 'docs/train-orchestrator.png');

  // The same run's share link, opened read-only in a new page.
  await grpo.waitForFunction(
    () => document.querySelector('[data-testid="orch-status"]')?.getAttribute('data-status') === 'paused',
  );
  await grpo.click('[data-testid="orch-share"]');
  const shared = await browser.newPage({ viewport: { width: 1440, height: 1600 } });
  await shared.goto(await grpo.locator('[data-testid="orch-share-link"]').inputValue());
  await shared.locator('[data-testid="orch-shared-page"]').waitFor();
  await shot(shared, 'docs/train-orchestrator-shared.png');

  // The Orchestrate page with the shipped offline model (the default entry) on wasm, after a
  // constrained design for a generated MASBench task.
  const orch = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await orch.goto(`${url}#/orchestrate`);
  await orch.locator('[data-testid="orchestrate-page"]').waitFor();
  await orch.locator('[data-testid="orch-model"] option[value="baton-orchestrator-tiny"]').waitFor({
    state: 'attached',
  });
  await orch.getByTestId('orch-device').selectOption('wasm');
  await orch.getByTestId('orch-load').click();
  await orch.waitForFunction(
    () => document.querySelector('[data-testid="orch-load-state"]')?.getAttribute('data-status') === 'ready',
    null,
    { timeout: 60_000 },
  );
  await orch.getByTestId('orch-task-masbench').check();
  await orch.getByTestId('orch-bench-axis').selectOption('depth');
  await orch.getByTestId('orch-bench-value').fill('3');
  await orch.getByTestId('orch-dom').selectOption('high');
  await orch.getByTestId('orch-start').click();
  await orch.waitForFunction(
    () => document.querySelector('[data-testid="orch-gen-status"]')?.getAttribute('data-status') === 'done',
    null,
    { timeout: 120_000 },
  );
  await orch.evaluate(() => window.scrollTo(0, 0));
  await shot(orch, 'docs/orchestrate-page.png');

  // The Settings provider writes the design: the test server answers broken designs, then a good one.
  const wire = await startOpenAIServer({ responder: designScriptResponder(defaultResponder) });
  try {
    const prov = await browser.newPage({ viewport: { width: 1440, height: 1300 } });
    await prov.goto(`${url}#/settings`);
    await prov.locator('[data-testid="settings-page"]').waitFor();
    await prov.getByTestId('settings-provider').selectOption('custom');
    await prov.getByTestId('settings-base-url').fill(wire.baseUrl);
    await prov.getByTestId('settings-model').fill('gpt-4.1-mini');
    await prov.getByTestId('settings-repair-turns').fill('5');
    await prov.goto(`${url}#/orchestrate`);
    await prov.locator('[data-testid="orchestrate-page"]').waitFor();
    await prov.getByTestId('orch-orchestrator-provider').check();
    await prov.getByTestId('orch-query').fill('Compare the GDP growth of France and Germany in 2023');
    await prov.getByTestId('orch-start').click();
    await prov.locator('[data-testid="orch-check"][data-valid="true"]').waitFor({ timeout: 30_000 });
    await shot(prov, 'docs/orchestrate-provider.png');
  } finally {
    await wire.close();
  }
} finally {
  await browser.close();
  server.close();
}
