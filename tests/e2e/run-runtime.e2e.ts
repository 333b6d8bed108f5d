import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startOpenAIServer, type OpenAIServer } from '../server/openai-server.ts';
import { launch, openPage } from './browser.ts';

/**
 * The Run and Settings pages against the real local OpenAI-wire server (CORS, latency, seeded
 * faults): a multi-agent run, a reload mid-run, the simulator, and a scan for a planted API key
 * in everything the app stores or hands out.
 */

const KEY = 'sk-test-PLANTED-0123456789abcdef';
const MODEL = 'baton-test-echo';

interface TraceJson {
  id: string;
  tags: string[];
  design: { agents: { id: string }[] };
  execution: {
    status: string;
    backend: Record<string, unknown>;
    events: { type: string; agentId?: string; error?: string; status?: string }[];
  };
  result: { finalAnswer: string | null };
}

/** A five-agent DAG: two starts and a self-consistency vote feed a reflexion check and a final agent. */
const FIVE_AGENTS = JSON.stringify({
  format: 'baton.design/1',
  dom: 'high',
  agents: [
    { id: 'a', type: 'CoTAgent', description: 'first view', input: '' },
    { id: 'b', type: 'CoTAgent', description: 'second view', input: '' },
    { id: 'c', type: 'SCAgent', description: 'vote', input: '', params: { samples: 3 } },
    { id: 'd', type: 'ReflexionAgent', description: 'check', input: '${a}\n${b}', params: { maxRounds: 2 } },
    { id: 'e', type: 'CoTAgent', description: 'final answer', input: '${c}\n${d}' },
  ],
  edges: [
    { from: 'a', to: 'd' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'e' },
    { from: 'd', to: 'e' },
  ],
});

const CHAIN = JSON.stringify({
  dom: 'high',
  agents: [
    { id: 'first', type: 'CoTAgent', description: 'step 1', input: '' },
    { id: 'second', type: 'CoTAgent', description: 'step 2', input: '${first}' },
    { id: 'third', type: 'CoTAgent', description: 'step 3', input: '${second}' },
  ],
  edges: [
    { from: 'first', to: 'second' },
    { from: 'second', to: 'third' },
  ],
});

let browser: Browser;
let server: OpenAIServer;

beforeAll(async () => {
  browser = await launch();
  // A careless provider: a 401 body repeats the key it was given.
  server = await startOpenAIServer({
    apiKey: KEY,
    echoKeyInErrors: true,
    models: [MODEL, 'baton-test-mini'],
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
beforeEach(() => {
  server.reset();
  server.setFaults({ latencyMs: 120, rate: 0.2, seed: 11 });
});

const byTest = (id: string): string => `[data-testid="${id}"]`;

/** Points Settings at the test server, tests the connection without and with the key, prices the model. */
async function configure(page: Page, options: { remember: boolean }): Promise<void> {
  await page.goto(page.url().replace(/#.*$/, '') + '#/settings');
  await page.waitForSelector(byTest('settings-page'));
  await page.selectOption(byTest('settings-provider'), 'custom');
  await page.fill(byTest('settings-base-url'), server.baseUrl);
  await page.fill(byTest('settings-model'), MODEL);

  // Without the key the server answers 401, and the page says so in words.
  await page.click(byTest('settings-test-connection'));
  const failed = page.locator(`${byTest('settings-connection-result')}[data-status="error"]`);
  await failed.waitFor();
  expect(await failed.textContent()).toContain('401');

  if (options.remember) await page.check(byTest('settings-remember'));
  await page.fill(byTest('settings-api-key'), KEY);
  expect(await page.getAttribute(byTest('settings-key-status'), 'data-location')).toBe(
    options.remember ? 'device' : 'session',
  );
  await page.click(byTest('settings-test-connection'));
  const ok = page.locator(`${byTest('settings-connection-result')}[data-status="ok"]`);
  await ok.waitFor();
  expect(await ok.textContent()).toContain('2 models');

  // The model has no list price: give it one, so the default USD limit lets its calls through.
  await page.fill(byTest('settings-price-new-model'), MODEL);
  await page.fill(byTest('settings-price-new-input'), '0.5');
  await page.fill(byTest('settings-price-new-output'), '1.5');
  await page.click(byTest('settings-price-add'));
  await page.waitForSelector(`${byTest('settings-price-row')}[data-model="${MODEL}"]`);
}

async function prepareRun(page: Page, design: string, query = 'Add 19 and 23.'): Promise<void> {
  await page.goto(page.url().replace(/#.*$/, '') + '#/run');
  await page.waitForSelector(byTest('run-page'));
  await page.check(byTest('run-backend-provider'));
  await page.check(byTest('run-task-custom'));
  await page.fill(byTest('run-query'), query);
  await page.fill(byTest('run-truth'), '42');
  await page.check(byTest('run-design-paste'));
  await page.fill(byTest('run-design-text'), design);
  await page.waitForSelector(byTest('design-valid'));
}

/** The trace as the app exports it: the trace page's "Download JSON". */
async function downloadTrace(page: Page): Promise<{ text: string; trace: TraceJson }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(byTest('download-json'))]);
  const path = await download.path();
  const text = readFileSync(path, 'utf8');
  return { text, trace: JSON.parse(text) as TraceJson };
}

async function runAndOpen(page: Page): Promise<string> {
  await page.click(byTest('run-start'));
  await page.waitForURL(/#\/trace\//, { timeout: 110_000 });
  await page.waitForSelector(byTest('trace-header'));
  return decodeURIComponent(page.url().replace(/^.*#\/trace\//, ''));
}

/** Every IndexedDB record of the origin, serialised, per database and store. */
async function allIndexedDb(
  page: Page,
): Promise<{ db: string; store: string; count: number; text: string }[]> {
  return page.evaluate(async () => {
    const out: { db: string; store: string; count: number; text: string }[] = [];
    const request = <T>(r: IDBRequest<T>): Promise<T> =>
      new Promise((resolve, reject) => {
        r.onsuccess = () => resolve(r.result);
        r.onerror = () => reject(r.error);
      });
    for (const info of await indexedDB.databases()) {
      if (!info.name) continue;
      const db = await request(indexedDB.open(info.name));
      for (const name of Array.from(db.objectStoreNames)) {
        const store = db.transaction(name, 'readonly').objectStore(name);
        const [keys, values] = await Promise.all([request(store.getAllKeys()), request(store.getAll())]);
        out.push({ db: info.name, store: name, count: values.length, text: JSON.stringify([keys, values]) });
      }
      db.close();
    }
    return out;
  });
}

const storageText = (page: Page, which: 'localStorage' | 'sessionStorage'): Promise<string> =>
  page.evaluate((w) => {
    const s = window[w];
    const all: Record<string, string | null> = {};
    for (let i = 0; i < s.length; i++) {
      const k = s.key(i);
      if (k !== null) all[k] = s.getItem(k);
    }
    return JSON.stringify(all);
  }, which);

describe('run page', () => {
  it('runs a five-agent design against a faulty server; every agent ends, with a reason when it failed', async () => {
    const { context, page, errors } = await openPage(browser);
    try {
      await configure(page, { remember: false });
      await prepareRun(page, FIVE_AGENTS);
      // While the run goes, the DAG shows it: some agent is running before the run ends.
      await page.click(byTest('run-start'));
      await page.waitForSelector(`${byTest('run-agent')}[data-status="running"]`);
      expect(await page.locator(byTest('run-stop')).isVisible()).toBe(true);
      await page.waitForURL(/#\/trace\//, { timeout: 110_000 });
      await page.waitForSelector(byTest('trace-header'));

      const { trace } = await downloadTrace(page);
      const events = trace.execution.events;
      expect(['completed', 'failed']).toContain(trace.execution.status);
      expect(trace.execution.backend).toMatchObject({ kind: 'remote', provider: 'custom', model: MODEL });
      expect(events.at(-1)).toMatchObject({ type: 'run.end' });
      for (const agent of trace.design.agents) {
        const started = events.filter((e) => e.type === 'agent.start' && e.agentId === agent.id);
        const ended = events.filter(
          (e) => (e.type === 'agent.end' || e.type === 'agent.error') && e.agentId === agent.id,
        );
        expect(started, agent.id).toHaveLength(1);
        expect(ended, agent.id).toHaveLength(1);
        if (ended[0]?.type === 'agent.error') expect(ended[0].error ?? '').not.toBe('');
      }
      expect(events.filter((e) => e.type === 'llm.call').length).toBeGreaterThanOrEqual(7);
      // The fault rate really hit: some requests got a 5xx, a 429 or a dropped connection.
      expect(server.requests.filter((r) => r.fault !== undefined).length).toBeGreaterThan(0);
      expect(server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`)).toBe(true);

      // Back on the Run page the finished run is still shown, each agent done or failed with its reason.
      await page.click(byTest('nav-run'));
      const rows = page.locator(byTest('run-agent'));
      await page.waitForSelector(`${byTest('run-status')}[data-status="${trace.execution.status}"]`);
      expect(await rows.count()).toBe(5);
      for (let i = 0; i < 5; i++) {
        const row = rows.nth(i);
        const status = await row.getAttribute('data-status');
        expect(['done', 'failed']).toContain(status);
        if (status === 'failed')
          expect((await row.locator(byTest('run-agent-error')).textContent()) ?? '').not.toBe('');
        else expect((await row.locator(byTest('run-agent-output')).textContent()) ?? '').toContain('boxed');
      }
      // The run is among the gallery's recent traces.
      await page.click(byTest('nav-gallery'));
      await page.waitForSelector(`[data-testid="recent-item"][data-id="${trace.id}"]`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 150_000);

  it('keeps a run that a reload interrupted: the events so far, marked interrupted', async () => {
    server.setFaults({ latencyMs: 1_500, rate: 0 });
    const { context, page, errors } = await openPage(browser);
    try {
      await configure(page, { remember: false });
      server.setFaults({ latencyMs: 1_500, rate: 0 });
      await prepareRun(page, CHAIN);
      await page.click(byTest('run-start'));
      // Reload once the first agent has finished and the second is waiting on its call.
      await page.waitForSelector(`${byTest('run-agent')}[data-agent-id="first"][data-status="done"]`, {
        timeout: 20_000,
      });
      await page.waitForSelector(`${byTest('run-agent')}[data-agent-id="second"][data-status="running"]`);
      const traceId = await page.getAttribute(byTest('run-live'), 'data-trace-id');
      expect(traceId).toBeTruthy();
      await page.reload();

      const notice = page.locator(byTest('run-interrupted'));
      await notice.waitFor();
      const stoppedAt = Number(/stopped at event (\d+)/.exec((await notice.textContent()) ?? '')?.[1]);
      // agent.start, llm.call, agent.end of "first" and agent.start of "second" at least.
      expect(stoppedAt).toBeGreaterThanOrEqual(4);
      expect(await page.getAttribute(byTest('run-status'), 'data-status')).toBe('interrupted');
      expect(await page.getAttribute(byTest('run-live'), 'data-trace-id')).toBe(traceId);

      await page.click(byTest('run-open-trace'));
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      expect(trace.id).toBe(traceId);
      expect(trace.execution.status).toBe('running');
      expect(trace.tags).toContain('interrupted');
      expect(trace.execution.events).toHaveLength(stoppedAt);
      expect(trace.execution.events.slice(0, 3).map((e) => `${e.type}:${e.agentId ?? ''}`)).toEqual([
        'agent.start:first',
        'llm.call:first',
        'agent.end:first',
      ]);
      expect(trace.execution.events.some((e) => e.type === 'run.end')).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('runs a generated MASBench task on the simulator, badged SIMULATED, to a final answer', async () => {
    const { context, page, errors } = await openPage(browser, '#/run');
    try {
      await page.waitForSelector(byTest('run-page'));
      await page.check(byTest('run-backend-simulator'));
      expect(await page.locator(byTest('simulated-badge')).count()).toBeGreaterThan(0);
      // The simulator takes generated tasks only, so choosing it switches the task to MASBench.
      expect(await page.isChecked(byTest('run-task-masbench'))).toBe(true);
      await page.selectOption(byTest('run-bench-axis'), 'parallel');
      await page.fill(byTest('run-bench-value'), '3');
      await page.fill(byTest('run-bench-seed'), '5');
      const question = (await page.textContent(byTest('run-bench-question'))) ?? '';
      expect(question.length).toBeGreaterThan(40);
      expect(await page.textContent(byTest('run-bench-truth'))).toMatch(/^\d+(, \d+)*$/);

      await page.check(byTest('run-design-paste'));
      await page.fill(byTest('run-design-text'), CHAIN);
      await page.waitForSelector(byTest('design-valid'));
      await page.click(byTest('run-start'));
      await page.waitForSelector(`${byTest('run-live')} ${byTest('simulated-badge')}`);
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      expect(trace.execution.backend.kind).toBe('simulated');
      expect(trace.tags).toContain('simulated');

      await page.click(byTest('nav-run'));
      await page.waitForSelector(`${byTest('run-live')} ${byTest('simulated-badge')}`);
      // The answer as the grader read it, not the paragraph around it; the paragraph on request.
      const answer = (await page.textContent(byTest('run-final-answer'))) ?? '';
      expect(answer).toMatch(/^\d+(, \d+)*$/);
      expect(trace.result.finalAnswer).toContain(`\\boxed{${answer}}`);
      await page.click(`${byTest('run-final')} summary`);
      expect(await page.textContent(byTest('run-final-output'))).toBe(trace.result.finalAnswer);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('disables Run while a pasted design breaks rules, listing every numbered violation', async () => {
    const { context, page } = await openPage(browser, '#/run');
    try {
      await page.waitForSelector(byTest('run-page'));
      await page.check(byTest('run-task-custom'));
      await page.fill(byTest('run-query'), 'Anything');
      await page.check(byTest('run-design-paste'));
      const broken = JSON.stringify({
        dom: 'high',
        agents: [
          { id: 'x', type: 'CoTAgent', input: '${y}' },
          { id: 'y', type: 'NoSuchAgent', input: '${x}' },
        ],
        edges: [
          { from: 'x', to: 'y' },
          { from: 'y', to: 'x' },
        ],
      });
      await page.fill(byTest('run-design-text'), broken);
      await page.waitForSelector(byTest('design-violation'));
      const rules = await page
        .locator(byTest('design-violation'))
        .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-rule'))));
      expect(rules).toEqual(expect.arrayContaining([2, 6]));
      expect(await page.isDisabled(byTest('run-start'))).toBe(true);
      await page.fill(byTest('run-design-text'), CHAIN);
      await page.waitForSelector(byTest('design-valid'));
      expect(await page.locator(byTest('design-violation')).count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});

describe('run page: drawing, stopping, failing', () => {
  it('draws a design: agents by type, an edge by dragging, ${id} filled in, validated live, then runs it', async () => {
    const { context, page, errors } = await openPage(browser, '#/run');
    try {
      await page.waitForSelector(byTest('run-page'));
      await page.check(byTest('run-backend-simulator'));
      await page.check(byTest('run-design-draw'));
      await page.click(byTest('draft-add'));
      await page.selectOption(byTest('draft-add-type'), 'ReflexionAgent');
      await page.click(byTest('draft-add'));
      // Two agents and no edge: two sinks, rule 4.
      await page.waitForSelector(`${byTest('design-violation')}[data-rule="4"]`);
      expect(await page.isDisabled(byTest('run-start'))).toBe(true);

      const from = await page.locator(`[data-agent-id="cot1"] ${byTest('draft-handle-out')}`).boundingBox();
      const to = await page
        .locator(`[data-agent-id="reflexion1"] ${byTest('draft-handle-in')}`)
        .boundingBox();
      if (!from || !to) throw new Error('handles not on screen');
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + 20, from.y + 20, { steps: 4 });
      await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
      await page.mouse.up();

      await page.waitForSelector(byTest('design-valid'));
      expect(await page.locator(`${byTest('design-editor')} .react-flow__edge`).count()).toBe(1);
      await page.click(`[data-agent-id="reflexion1"]`);
      expect(await page.inputValue(byTest('draft-input'))).toBe('${cot1}');

      // Renaming carries the id into the edge and the reference.
      await page.click(`[data-agent-id="cot1"]`);
      await page.fill(byTest('draft-id'), 'solver');
      await page.press(byTest('draft-id'), 'Enter');
      await page.click(`[data-agent-id="reflexion1"]`);
      expect(await page.inputValue(byTest('draft-input'))).toBe('${solver}');
      await page.waitForSelector(byTest('design-valid'));

      await page.click(byTest('run-start'));
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      expect(trace.design.agents.map((a) => a.id)).toEqual(['solver', 'reflexion1']);
      expect(trace.execution.status).toBe('completed');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('runs the design of a bundled example on a generated task', async () => {
    const example = JSON.parse(readFileSync('dist/examples/parallel-branches.json', 'utf8')) as TraceJson;
    const { context, page, errors } = await openPage(browser, '#/run');
    try {
      await page.waitForSelector(byTest('run-page'));
      await page.check(byTest('run-backend-simulator'));
      await page.check(byTest('run-design-trace'));
      await page.waitForSelector(`${byTest('run-design-trace-select')} option[value="${example.id}"]`, {
        state: 'attached',
      });
      await page.selectOption(byTest('run-design-trace-select'), example.id);
      const valid = page.locator(byTest('design-valid'));
      await valid.waitFor();
      expect(await valid.textContent()).toContain(`${example.design.agents.length} agents`);
      await page.click(byTest('run-start'));
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      expect(trace.id).not.toBe(example.id);
      expect(trace.design.agents.map((a) => a.id)).toEqual(example.design.agents.map((a) => a.id));
      expect(trace.execution.backend.kind).toBe('simulated');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('shows why an agent failed and lets its dependents run on the placeholder', async () => {
    const { context, page, errors } = await openPage(browser);
    try {
      await configure(page, { remember: false });
      // One agent at a time, so the queued faults all land on the first agent's attempts.
      await page.fill(byTest('settings-concurrency'), '1');
      await prepareRun(page, CHAIN);
      server.setFaults({
        latencyMs: 20,
        rate: 0,
        once: [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }],
      });
      await page.click(byTest('run-start'));
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      const error = trace.execution.events.find((e) => e.type === 'agent.error');
      expect(error?.agentId).toBe('first');
      expect(error?.error).toContain('500');
      expect(trace.execution.events.filter((e) => e.type === 'agent.end').map((e) => e.agentId)).toEqual([
        'second',
        'third',
      ]);

      await page.click(byTest('nav-run'));
      const failed = page.locator(`${byTest('run-agent')}[data-agent-id="first"]`);
      expect(await failed.getAttribute('data-status')).toBe('failed');
      expect(await failed.locator(byTest('run-agent-error')).textContent()).toContain('500');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('streams each call’s output into the page while it arrives', async () => {
    const { context, page, errors } = await openPage(browser);
    try {
      await configure(page, { remember: false });
      // Every response streams in small chunks 200 ms apart, so partial text is on screen a while.
      server.setFaults({ rate: 1, seed: 1, rateFaults: [{ chunkDelayMs: 200 }] });
      await prepareRun(page, CHAIN);
      await page.click(byTest('run-start'));
      const stream = page.locator(
        `${byTest('run-agent')}[data-agent-id="first"] ${byTest('run-agent-stream')}`,
      );
      await stream.waitFor({ timeout: 20_000 });
      const partial = (await stream.locator('pre').textContent()) ?? '';
      expect(partial.length).toBeGreaterThan(0);
      const done = page.locator(
        `${byTest('run-agent')}[data-agent-id="first"] ${byTest('run-agent-output')}`,
      );
      await done.waitFor({ timeout: 30_000 });
      // Once the call is recorded, the live view gives way to the agent's output.
      expect(await stream.count()).toBe(0);
      await page.waitForURL(/#\/trace\//, { timeout: 60_000 });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('stops a run: calls in flight are cancelled and the trace ends cancelled', async () => {
    const { context, page, errors } = await openPage(browser);
    try {
      await configure(page, { remember: false });
      server.setFaults({ latencyMs: 3_000, rate: 0 });
      await prepareRun(page, CHAIN);
      await page.click(byTest('run-start'));
      await page.waitForSelector(`${byTest('run-agent')}[data-agent-id="first"][data-status="running"]`);
      await page.click(byTest('run-stop'));
      await page.waitForURL(/#\/trace\//, { timeout: 20_000 });
      await page.waitForSelector(byTest('trace-header'));
      const { trace } = await downloadTrace(page);
      expect(trace.execution.status).toBe('cancelled');
      expect(trace.execution.events.at(-1)).toMatchObject({ type: 'run.end', status: 'cancelled' });
      expect(trace.execution.events.some((e) => e.type === 'agent.start' && e.agentId === 'second')).toBe(
        false,
      );
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe('planted API key', () => {
  for (const remember of [false, true]) {
    it(`appears nowhere it must not (remember on this device: ${remember})`, async () => {
      server.setFaults({ latencyMs: 20, rate: 0.2, seed: 3 });
      const { context, page, console: consoleLines, errors } = await openPage(browser);
      try {
        await configure(page, { remember });
        await prepareRun(page, CHAIN);
        const traceId = await runAndOpen(page);
        const { text: exported, trace } = await downloadTrace(page);
        expect(trace.id).toBe(traceId);

        await page.click(byTest('share-button'));
        const link = (await page.inputValue(byTest('share-link'))) || '';
        expect(link).toContain('#t=');

        const idb = await allIndexedDb(page);
        const idbText = idb.map((r) => r.text).join('\n');
        // The scan reads real records: the run's trace is among them.
        expect(idbText).toContain(traceId);
        const local = await storageText(page, 'localStorage');
        const session = await storageText(page, 'sessionStorage');

        for (const [where, text] of [
          ['trace JSON', exported],
          ['share link', link],
          ['IndexedDB', idbText],
          ['console', consoleLines.join('\n')],
          ['page errors', errors.join('\n')],
        ] as const) {
          expect(text.includes(KEY), where).toBe(false);
          expect(text.includes('PLANTED'), where).toBe(false);
        }
        // The key is where the user put it, and only there.
        expect(local.includes(KEY)).toBe(remember);
        expect(session.includes(KEY)).toBe(!remember);

        // A wrong key that the server echoes back in its 401 body is not shown either.
        await page.click(`${byTest('share-dialog')} .dialog-head button`);
        await page.click(byTest('nav-settings'));
        await page.fill(byTest('settings-api-key'), `${KEY}-wrong`);
        await page.click(byTest('settings-test-connection'));
        const failed = page.locator(`${byTest('settings-connection-result')}[data-status="error"]`);
        await failed.waitFor();
        expect(await failed.textContent()).toContain('401');
        const html = await page.evaluate(() => document.documentElement.outerHTML);
        expect(html.includes('PLANTED')).toBe(false);
        expect(consoleLines.join('\n').includes('PLANTED')).toBe(false);

        // "Forget key" takes it out of both storages.
        await page.click(byTest('settings-forget-key'));
        expect(await page.getAttribute(byTest('settings-key-status'), 'data-location')).toBe('none');
        expect((await storageText(page, 'localStorage')).includes(KEY)).toBe(false);
        expect((await storageText(page, 'sessionStorage')).includes(KEY)).toBe(false);
      } finally {
        await context.close();
      }
    }, 120_000);
  }
});
