import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ok } from '../../core/result.ts';
import { TraceSchema } from '../../core/trace.ts';
import { designOutcome, readTiny2 } from '../../orchestrator/index.ts';
import { DEFAULT_POOL } from '../../policy/index.ts';
import { decodeTraceLink, smallestLink } from '../../share/index.ts';
import { configureOrchestratorRuntime, type OrchestratorRuntime } from '../services/orchestrator.ts';
import { memoryRecents } from '../services/recents.ts';
import { resetBaton, useBaton } from '../store.ts';
import { configureLibrary, type LibraryEnv } from './library.ts';
import { directAnswerSoFar, orchDirectAnswerOf } from './orchestrate-direct.ts';
import { orchDesignOf, orchRunBlockers, partialDesign } from './orchestrate.ts';

/**
 * Low DoM's direct-answer branch on the Orchestrate slice: a runtime that answers with the `tiny2`
 * text of a direct answer, read by the real `tiny2` reader and recorded by the real designer
 * record (`designOutcome`), as the worker does. The real worker and a model that chooses the branch
 * run in Chromium in tests/e2e/orchestrate-direct.e2e.ts.
 */

const s = () => useBaton.getState();

const DIRECT =
  '<thinking>a chain of 2 dependent steps; no sub-agent is worth its cost here: answer directly</thinking>' +
  '<answer>7</answer>';

function directRuntime(text: string): OrchestratorRuntime {
  return {
    manifest: () =>
      Promise.resolve(
        ok({
          defaultId: 'tiny2',
          warnings: [],
          entries: [
            {
              id: 'tiny2',
              label: 'tiny2',
              source: 'offline' as const,
              sizeMB: { q8: 1 },
              dtypes: ['q8'],
              license: 'MIT',
              expectedSpeed: null,
              paramsM: 0.2,
              description: null,
            },
          ],
        }),
      ),
    load: (req) =>
      Promise.resolve(
        ok({
          id: req.model,
          label: req.model,
          dtype: 'q8',
          device: 'wasm' as const,
          deviceReason: 'no WebGPU adapter: wasm',
          loadMs: 1,
          warmupMs: 1,
          vocabSize: 1206,
        }),
      ),
    generate(req, options = {}) {
      const pieces = text.match(/[\s\S]{1,16}/g) ?? [];
      pieces.forEach((delta, i) => options.onProgress?.({ delta, tokens: i + 1 }));
      const dom = req.dom === 'auto' ? undefined : req.dom;
      const r = readTiny2(text, dom, DEFAULT_POOL);
      const g = {
        promptText: `<|dom_low|>${req.query}<|design|>`,
        promptTokens: 12,
        rawOutput: text,
        stopReason: 'eos' as const,
        firstTokenMs: 3,
        generateMs: 40,
        tokens: pieces.length,
        tokensPerSecond: 25,
      };
      const out = designOutcome(
        g,
        r.ok ? { design: r.design, errors: [] } : { design: null, errors: r.problems },
        {
          model: 'tiny2',
          dtype: 'q8',
          device: 'wasm',
          deviceReason: 'no WebGPU adapter: wasm',
          promptFormat: 'tiny',
          dom: req.dom,
          constrained: req.constrained,
          temperature: req.temperature,
          seed: req.seed,
        },
      );
      return Promise.resolve(
        ok({
          rawOutput: text,
          design: out.design,
          problem: out.problem ?? null,
          stopReason: 'eos' as const,
          timings: { firstTokenMs: 3, generateMs: 40, tokens: pieces.length, tokensPerSecond: 25 },
          designer: out.designer,
        }),
      );
    },
    interrupt: () => Promise.resolve(),
    clearCache: () => Promise.resolve(ok({ removed: 0 })),
  };
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

async function orchestrated(text: string): Promise<void> {
  configureOrchestratorRuntime(directRuntime(text));
  await s().initOrchestrate();
  await s().loadOrchModel();
  s().setOrchDraft({ taskMode: 'masbench', dom: 'low' });
  s().setOrchBench({ axis: 'depth', value: 2, seed: 4 });
  await s().startOrchestrate();
}

describe('directAnswerSoFar', () => {
  it('reads the answer while it is written and once it is closed, with no agent', () => {
    expect(directAnswerSoFar('<thinking>plan</thinking><answer>the ans')).toBe('the ans');
    expect(directAnswerSoFar(DIRECT)).toBe('7');
    expect(partialDesign(DIRECT).design.agents).toEqual([]);
    expect(directAnswerSoFar('<thinking>plan</thinking><answer>')).toBe('');
  });

  it('is null while the model has not chosen the branch, and for a delegated design', () => {
    expect(directAnswerSoFar('<thinking>plan</thinking>')).toBeNull();
    const delegate =
      '<thinking>x</thinking><agent><agent_id>cot-1</agent_id><agent_name>CoTAgent</agent_name>' +
      '<agent_description>CoT</agent_description><required_arguments><agent_input></agent_input>' +
      '</required_arguments></agent><edge></edge>';
    expect(directAnswerSoFar(delegate)).toBeNull();
  });
});

describe('the Orchestrate slice on a direct answer', () => {
  it('keeps the direct answer as the design, and its run records branch direct without running an agent', async () => {
    await orchestrated(DIRECT);
    const g = s().orchGen;
    expect(g?.status).toBe('done');
    expect(g?.check).toEqual({ valid: true, lines: [] });
    expect(orchDesignOf(g)?.agents).toEqual([]);
    expect(orchDirectAnswerOf(g)).toBe('7');
    expect(g?.result?.designer).toMatchObject({ kind: 'orchestrator', branch: 'direct', valid: true });
    expect(orchRunBlockers(s(), 'simulator')).toEqual([]);

    const id = await s().runOrchestrated('simulator');
    expect(id).not.toBeNull();
    const trace = TraceSchema.parse(s().openTraces[id ?? '']);
    expect(trace.designer).toMatchObject({ kind: 'orchestrator', branch: 'direct' });
    expect(trace.design).toMatchObject({ agents: [], edges: [], directAnswer: '7' });
    expect(trace.execution.status).toBe('completed');
    // No agent ran: no agent event, no call, no token spent on sub-agents.
    expect(trace.execution.events.filter((e) => e.type.startsWith('agent.'))).toEqual([]);
    expect(trace.totals).toMatchObject({ llmCalls: 0, promptTokens: 0, completionTokens: 0 });
    expect(trace.result.finalAnswer).toBe('7');
    expect(trace.result.correct).not.toBeNull();
    // The orchestrator's own tokens stay in the designer record.
    expect(trace.designer.kind === 'orchestrator' && trace.designer.timings?.tokens).toBe(g?.tokens);

    // A share link carries the branch and the answer.
    const back = decodeTraceLink(smallestLink(trace).fragment);
    expect(back.ok && back.value.designer).toMatchObject({ branch: 'direct' });
    expect(back.ok && back.value.design.directAnswer).toBe('7');
  });

  it('refuses a direct answer asked in high DoM: no design, the reason in words', async () => {
    configureOrchestratorRuntime(directRuntime(DIRECT));
    await s().initOrchestrate();
    await s().loadOrchModel();
    s().setOrchDraft({ query: 'q', dom: 'high' });
    await s().startOrchestrate();
    const g = s().orchGen;
    expect(orchDesignOf(g)).toBeNull();
    expect(orchDirectAnswerOf(g)).toBeNull();
    expect(g?.check?.lines).toContain('High Degree of MAS has no direct answer.');
  });
});
