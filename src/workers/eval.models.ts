/**
 * In-tab orchestrator methods on the Evaluate page (`orchestrator:tiny`, `orchestrator:<id>` of a
 * model this build ships): the evaluation worker loads the model exactly as the Orchestrate page's
 * worker does — the same session handlers (orchestrator.session.ts: transformers.js, the app's own
 * `models/` folder and onnxruntime-web files, no CDN), the same device probe — and writes each
 * task's design with constrained decoding, greedy, one design at a time (the runtime holds one
 * generation). Hub models are not run here: an evaluation does not download hundreds of megabytes.
 * The model runs in the tab and has no price: its designs cost $0, and their tokens (prompt and
 * generated) are the designer's `usage`, so each row counts them (src/eval/orchestrated.ts).
 * Loaded on demand by eval.handlers.ts, only for an evaluation that has such a method.
 */
import { DesignSchema, DesignerSchema } from '../core/trace.ts';
import {
  isProviderOrchestrator,
  withLocalUsage,
  type OrchestratorDesign,
  type OrchestratorFor,
} from '../eval/index.ts';
import { orchestratorMessages } from '../interop/index.ts';
import { probeDevice, yieldEach } from './orchestrator.env.ts';
import { orchestratorHandlers, type OrchestratorSessionDeps } from './orchestrator.session.ts';

export interface InTabOrchestrators {
  orchestratorFor: OrchestratorFor;
  dispose: () => Promise<void>;
}

/**
 * The models of `baseUrl`'s manifest this page can run: `tiny` (the manifest's default) and every
 * entry served with this build. Resolves with no models when the manifest cannot be read (each such
 * method is then reported not run, saying so).
 */
export async function inTabOrchestrators(
  baseUrl: string,
  deps: Partial<OrchestratorSessionDeps> = {},
): Promise<InTabOrchestrators> {
  const session = orchestratorHandlers({
    probe: probeDevice,
    chatMessages: orchestratorMessages,
    yieldEach,
    ...deps,
  });
  const idle = { signal: new AbortController().signal, progress: () => undefined };
  const manifest = await session.manifest({ baseUrl }, idle);
  const shipped = new Set(
    manifest.ok ? manifest.models.filter((m) => m.source.kind === 'local').map((m) => m.id) : [],
  );
  const defaultId = manifest.ok ? manifest.default : '';
  const idOf = (name: string): string | null => {
    const id = name === 'tiny' ? defaultId : name;
    return shipped.has(id) ? id : null;
  };
  let loaded: string | null = null;
  let queue: Promise<unknown> = Promise.resolve();

  const design = async (
    name: string,
    id: string,
    query: string,
    seed: number,
    signal?: AbortSignal,
  ): Promise<OrchestratorDesign> => {
    const ctx = { signal: signal ?? idle.signal, progress: () => undefined };
    const failed = (failure: string): OrchestratorDesign => ({
      design: null,
      designer: { kind: 'orchestrator', model: name, parseErrors: [], valid: false, failure },
      failure,
    });
    if (loaded !== id) {
      const l = await session.load(
        { model: id, device: 'auto', dtype: 'auto', baseUrl, useCache: true },
        ctx,
      );
      if (!l.ok) return failed(`${l.problem.code}: ${l.problem.message}`);
      loaded = id;
    }
    const g = await session.generate({ query, dom: 'auto', constrained: true, temperature: 0, seed }, ctx);
    if (!g.ok) return failed(`${g.problem.code}: ${g.problem.message}`);
    return {
      design: g.design ? DesignSchema.parse(g.design) : null,
      // The handler's answer in its wire form; read back as the trace's record.
      designer: withLocalUsage(DesignerSchema.parse(g.designer), g.promptTokens ?? 0, g.timings.tokens),
      ...(g.problem ? { failure: g.problem.message } : {}),
    };
  };

  return {
    orchestratorFor: (m) => {
      if (m.kind !== 'orchestrator') return null;
      const name = m.model;
      const id = isProviderOrchestrator(m) ? null : idOf(name);
      if (id === null) return null;
      return (task, seed, signal) => {
        const run = queue.then(() => design(name, id, task.query, seed >>> 0, signal));
        queue = run.catch(() => undefined);
        return run;
      };
    },
    dispose: async () => {
      await session.dispose({}, idle);
    },
  };
}
