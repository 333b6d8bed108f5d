import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok } from '../../core/result.ts';
import { TraceSchema, type Designer } from '../../core/trace.ts';
import { formatReport, parseDesign } from '../../design/parse.ts';
import {
  configureOrchestratorRuntime,
  type GenerateProgress,
  type GenerateRequest,
  type GenerationResult,
  type LoadEvent,
  type LoadRequest,
  type OrchestratorRuntime,
} from '../services/orchestrator.ts';
import { configureKeys, memoryKeyStore } from '../services/keys.ts';
import { memoryRecents } from '../services/recents.ts';
import { startOpenAIServer } from '../../../tests/server/openai-server.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureLibrary, type LibraryEnv } from './library.ts';
import { orchestrateBlockers, orchRunBlockers, partialDesign } from './orchestrate.ts';

/**
 * The Orchestrate slice over a scripted runtime: the model worker cannot run in Node's test
 * environment, so this stand-in answers as its protocol says (per-file progress, streamed text,
 * interrupt at the next token, a coded problem for a bad file). The real worker is driven in
 * Chromium by tests/e2e/orchestrate.e2e.ts.
 */

const s = () => useBaton.getState();

const DESIGN = `<thinking>
Solve, then summarise.
</thinking>
<agent>
    <agent_id>solve</agent_id>
    <agent_name>CoTAgent</agent_name>
    <agent_description>Solve the task.</agent_description>
    <required_arguments>
        <agent_input></agent_input>
    </required_arguments>
</agent>
<agent>
    <agent_id>final</agent_id>
    <agent_name>SummarizerAgent</agent_name>
    <agent_description>Give the answer.</agent_description>
    <required_arguments>
        <agent_input>\${solve}</agent_input>
    </required_arguments>
</agent>
<edge>
    <from>solve</from> <to>final</to>
</edge>
`;

/** A gate the test opens: the runtime waits on it between steps; an opening before the wait is kept. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let permits = 0;
  let waiter: (() => void) | null = null;
  return {
    wait: () => {
      if (permits > 0) {
        permits -= 1;
        return Promise.resolve();
      }
      return new Promise<void>((r) => (waiter = r));
    },
    open: () => {
      if (waiter) {
        const w = waiter;
        waiter = null;
        w();
      } else permits += 1;
    },
  };
}

interface Script {
  loadFails?: { code: string; message: string };
  output?: string;
  /** The worker dies before this piece of the output. */
  crashAfter?: number;
}

function scriptedRuntime(script: Script, steps = gate()) {
  let interrupted = false;
  const calls: { load: LoadRequest[]; generate: GenerateRequest[] } = { load: [], generate: [] };
  const rt: OrchestratorRuntime = {
    manifest: () =>
      Promise.resolve(
        ok({
          defaultId: 'baton-tiny',
          warnings: ['model "broken" is left out: dtypes: required'],
          entries: [
            {
              id: 'qwen-0.5b',
              label: 'Qwen2.5 0.5B Instruct',
              source: 'hub' as const,
              sizeMB: { q4f16: 480 },
              dtypes: ['q4f16'],
              license: 'Apache-2.0',
              expectedSpeed: null,
              paramsM: 494,
              description: null,
            },
            {
              id: 'baton-tiny',
              label: 'Baton tiny orchestrator',
              source: 'offline' as const,
              sizeMB: { q8: 3 },
              dtypes: ['q8', 'fp32'],
              license: 'MIT',
              expectedSpeed: null,
              paramsM: 2,
              description: null,
            },
          ],
        }),
      ),
    async load(req, options = {}) {
      calls.load.push(req);
      const report = (e: LoadEvent): void => options.onProgress?.(e);
      report({ kind: 'file', file: { file: 'config.json', loaded: 10, total: 10, done: true } });
      report({
        kind: 'file',
        file: { file: 'onnx/model_quantized.onnx', loaded: 100, total: 1000, done: false },
      });
      await steps.wait();
      if (script.loadFails) return fail(script.loadFails);
      report({
        kind: 'file',
        file: { file: 'onnx/model_quantized.onnx', loaded: 1000, total: 1000, done: true },
      });
      return ok({
        id: req.model,
        label: req.model,
        dtype: 'q8',
        device: 'wasm' as const,
        deviceReason: 'no WebGPU adapter: wasm',
        loadMs: 40,
        warmupMs: 5,
        vocabSize: 300,
      });
    },
    async generate(req, options = {}) {
      calls.generate.push(req);
      interrupted = false;
      const text = script.output ?? DESIGN;
      const pieces = text.match(/[\s\S]{1,40}/g) ?? [];
      let written = '';
      for (const [i, piece] of pieces.entries()) {
        if (interrupted) break;
        if (script.crashAfter !== undefined && i === script.crashAfter)
          return fail({ code: 'E_WORKER_CRASHED', message: 'The worker stopped unexpectedly' });
        written += piece;
        const p: GenerateProgress = { delta: piece, tokens: i + 1 };
        options.onProgress?.(p);
        if (i === 2) await steps.wait();
        await new Promise((r) => setTimeout(r, 0));
      }
      const report = parseDesign(written, req.dom === 'auto' ? undefined : req.dom);
      const designer: Designer = {
        kind: 'orchestrator',
        model: 'baton-tiny',
        prompt: `task: ${req.query}`,
        rawOutput: written,
        parseErrors: formatReport(report),
        dtype: 'q8',
        device: 'wasm',
        constrained: req.constrained,
        constraint: { maskedSteps: 7, forcedTokens: 3 },
        timings: { generateMs: 100, tokens: pieces.length, tokensPerSecond: 12.5, firstTokenMs: 4 },
      };
      const result: GenerationResult = {
        rawOutput: written,
        design: report.design,
        problem: report.design
          ? null
          : { code: 'E_MODEL_OUTPUT', message: 'The model wrote no valid design' },
        stopReason: interrupted ? 'interrupted' : 'eos',
        timings: { firstTokenMs: 4, generateMs: 100, tokens: pieces.length, tokensPerSecond: 12.5 },
        designer,
      };
      return ok(result);
    },
    interrupt() {
      interrupted = true;
      steps.open();
      return Promise.resolve();
    },
    clearCache: () => Promise.resolve(ok({ removed: 4 })),
  };
  return { rt, steps, calls };
}

let previousLibrary: LibraryEnv;
let previousRuntime: OrchestratorRuntime | null;
beforeAll(() => {
  previousLibrary = configureLibrary({ storage: memoryRecents() });
  previousRuntime = configureOrchestratorRuntime(null);
});
afterAll(() => {
  configureLibrary(previousLibrary);
  configureOrchestratorRuntime(previousRuntime);
});
beforeEach(() => resetBaton());

const until = async (cond: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  if (!cond()) throw new Error('condition never held');
};

async function loaded(script: Script = {}) {
  const h = scriptedRuntime(script);
  configureOrchestratorRuntime(h.rt);
  await s().initOrchestrate();
  const p = s().loadOrchModel();
  await until(
    () => s().orchLoad.status === 'loading' && (s().orchLoad as { files: unknown[] }).files.length === 2,
  );
  h.steps.open();
  await p;
  return h;
}

describe('the Orchestrate slice', () => {
  it('picks the manifest default (the offline model) and keeps the manifest warnings', async () => {
    configureOrchestratorRuntime(scriptedRuntime({}).rt);
    await s().initOrchestrate();
    expect(s().orchDraft.modelId).toBe('baton-tiny');
    const m = s().orchModels;
    expect(m.status === 'ready' && m.warnings).toEqual(['model "broken" is left out: dtypes: required']);
  });

  it('shows each file while loading, then the device and its reason', async () => {
    const h = scriptedRuntime({});
    configureOrchestratorRuntime(h.rt);
    await s().initOrchestrate();
    const p = s().loadOrchModel();
    await until(() => {
      const l = s().orchLoad;
      return l.status === 'loading' && l.files.length === 2;
    });
    const during = s().orchLoad;
    expect(
      during.status === 'loading' && during.files.map((f) => [f.file, f.loaded, f.total, f.done]),
    ).toEqual([
      ['config.json', 10, 10, true],
      ['onnx/model_quantized.onnx', 100, 1000, false],
    ]);
    expect(orchestrateBlockers(s())).toContain('The model is loading.');
    h.steps.open();
    await p;
    const l = s().orchLoad;
    expect(l.status === 'ready' && [l.model.device, l.model.deviceReason]).toEqual([
      'wasm',
      'no WebGPU adapter: wasm',
    ]);
    expect(h.calls.load).toEqual([{ model: 'baton-tiny', device: 'auto', dtype: 'auto' }]);
  });

  it('shows a corrupt model file as its coded problem, keeps the settings and loads again after', async () => {
    const h = scriptedRuntime({
      loadFails: { code: 'E_MODEL_FILE', message: 'onnx/model.onnx is truncated' },
    });
    configureOrchestratorRuntime(h.rt);
    await s().initOrchestrate();
    s().setOrchDraft({ query: 'Plan a trip', temperature: 0.7, seed: 9, constrained: false });
    const before = s().orchDraft;
    const p = s().loadOrchModel();
    await until(
      () => s().orchLoad.status === 'loading' && (s().orchLoad as { files: unknown[] }).files.length === 2,
    );
    h.steps.open();
    await p;
    const l = s().orchLoad;
    expect(l.status === 'error' && l.problems).toEqual([
      { code: 'E_MODEL_FILE', message: 'onnx/model.onnx is truncated' },
    ]);
    expect(l.status === 'error' && l.files.length).toBe(2);
    expect(s().orchDraft).toEqual(before);
    expect(orchestrateBlockers(s())).toContain('Load a model first.');

    const h2 = scriptedRuntime({});
    configureOrchestratorRuntime(h2.rt);
    const p2 = s().loadOrchModel();
    await until(() => s().orchLoad.status === 'loading');
    h2.steps.open();
    await p2;
    expect(s().orchLoad.status).toBe('ready');
  });

  it('refuses a custom model that is neither a hub id nor a URL, without calling the worker', async () => {
    const h = scriptedRuntime({});
    configureOrchestratorRuntime(h.rt);
    s().setOrchDraft({ modelKind: 'custom', customModel: 'not a model', query: 'keep me' });
    await s().loadOrchModel();
    const l = s().orchLoad;
    expect(l.status === 'error' && l.problems[0]?.code).toBe('E_MODEL_SPEC');
    expect(h.calls.load).toEqual([]);
    expect(s().orchDraft.query).toBe('keep me');
  });
});

describe('orchestrating', () => {
  it('streams the text, grows the partial design, checks the result and runs it on the simulator', async () => {
    const h = await loaded();
    s().setOrchDraft({ taskMode: 'masbench' });
    s().setOrchBench({ axis: 'depth', value: 2, seed: 4 });
    const p = s().startOrchestrate();
    await until(() => (s().orchGen?.tokens ?? 0) >= 3);
    const mid = s().orchGen;
    expect(mid?.status).toBe('running');
    expect(mid && DESIGN.startsWith(mid.text) && mid.text.length < DESIGN.length).toBe(true);
    h.steps.open();
    await p;
    const g = s().orchGen;
    expect(g?.status).toBe('done');
    expect(g?.text).toBe(DESIGN);
    expect(g?.check).toEqual({ valid: true, lines: [] });
    expect(partialDesign(g?.text ?? '').design.agents.map((a) => a.id)).toEqual(['solve', 'final']);
    expect(h.calls.generate[0]).toMatchObject({ dom: 'auto', constrained: true, temperature: 0, seed: 0 });

    expect(orchRunBlockers(s(), 'simulator')).toEqual([]);
    const id = await s().runOrchestrated('simulator');
    expect(id).not.toBeNull();
    const trace = s().openTraces[id ?? ''];
    expect(TraceSchema.safeParse(trace).success).toBe(true);
    expect(trace?.execution.backend.kind).toBe('simulated');
    expect(trace?.execution.status).toBe('completed');
    expect(trace?.task.source).toMatchObject({ kind: 'masbench', axis: 'depth', value: 2 });
    expect(trace?.designer).toMatchObject({
      kind: 'orchestrator',
      model: 'baton-tiny',
      dtype: 'q8',
      device: 'wasm',
      rawOutput: DESIGN,
      constraint: { maskedSteps: 7, forcedTokens: 3 },
    });
    expect(trace?.design.agents.map((a) => a.id)).toEqual(['solve', 'final']);
  });

  it('keeps what was written when interrupted', async () => {
    const h = await loaded();
    s().setOrchDraft({ query: 'Sum the numbers' });
    const p = s().startOrchestrate();
    await until(() => (s().orchGen?.tokens ?? 0) >= 3);
    s().interruptOrchestrate();
    await p;
    const g = s().orchGen;
    expect(g?.status).toBe('interrupted');
    expect(g && g.text.length > 0 && DESIGN.startsWith(g.text) && g.text !== DESIGN).toBe(true);
    expect(g?.check?.valid).toBe(false);
    expect(orchRunBlockers(s(), 'simulator')[0]).toMatch(/no valid design/);
    expect(s().orchDraft.query).toBe('Sum the numbers');
    void h;
  });

  it('lists in words why unconstrained garbage is no design', async () => {
    const h = await loaded({ output: 'agent agent </edge> <agent><agent_id>x' });
    s().setOrchDraft({ query: 'anything', constrained: false });
    const p = s().startOrchestrate();
    h.steps.open();
    await p;
    const g = s().orchGen;
    expect(g?.status).toBe('done');
    expect(g?.check?.valid).toBe(false);
    expect(g?.check?.lines.some((l) => l.includes('No complete <agent> block'))).toBe(true);
    expect(h.calls.generate[0]?.constrained).toBe(false);
    expect(await s().runOrchestrated('simulator')).toBeNull();
    expect(s().orchRun.problems[0]?.code).toBe('E_SIMULATOR');
  });

  it('keeps the text and says why when the worker dies mid-way', async () => {
    const h = await loaded({ crashAfter: 5 });
    s().setOrchDraft({ query: 'anything' });
    const p = s().startOrchestrate();
    await until(() => (s().orchGen?.tokens ?? 0) >= 3);
    h.steps.open();
    await p;
    const g = s().orchGen;
    expect(g?.status).toBe('error');
    expect(g?.problems[0]?.code).toBe('E_WORKER_CRASHED');
    expect(g?.text).toBe(DESIGN.slice(0, 5 * 40));
    // The app keeps working: the next generation runs and finishes.
    const h2 = scriptedRuntime({});
    configureOrchestratorRuntime(h2.rt);
    const p2 = s().startOrchestrate();
    await until(() => (s().orchGen?.tokens ?? 0) >= 3);
    h2.steps.open();
    await p2;
    expect(s().orchGen?.status).toBe('done');
  });

  it('runs the simulator on generated MASBench tasks only', async () => {
    const h = await loaded();
    s().setOrchDraft({ query: 'A free-text task' });
    const p = s().startOrchestrate();
    h.steps.open();
    await p;
    expect(orchRunBlockers(s(), 'simulator')).toEqual(['The simulator runs generated MASBench tasks only.']);
  });

  it('runs the design on the Settings provider through the run path, with the key in no trace', async () => {
    const server = await startOpenAIServer({ responder: () => 'Step by step. \\boxed{5}' });
    const keys = configureKeys({ session: memoryKeyStore(), local: memoryKeyStore() });
    try {
      const key = `sk-test-${Math.random().toString(36).slice(2)}`;
      s().selectProvider('custom');
      s().setBaseUrl(server.baseUrl);
      s().setModel('test-model');
      s().setApiKey(key, false);
      s().setBudget({ totalUsd: null });
      const h = await loaded();
      s().setOrchDraft({ query: 'What is 2 + 3?' });
      const p = s().startOrchestrate();
      h.steps.open();
      await p;
      expect(orchRunBlockers(s(), 'provider')).toEqual([]);
      const id = await s().runOrchestrated('provider');
      expect(id).not.toBeNull();
      const trace = s().openTraces[id ?? ''];
      expect(trace?.execution.backend).toMatchObject({ kind: 'remote', model: 'test-model' });
      expect(trace?.execution.status).toBe('completed');
      expect(trace?.designer).toMatchObject({ kind: 'orchestrator', rawOutput: DESIGN });
      expect(server.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBe(2);
      expect(JSON.stringify(trace)).not.toContain(key);
    } finally {
      configureKeys(keys);
      await server.close();
    }
  });
});
