/**
 * `orchestrator:<model>` in `baton eval`: a model of models/manifest.json (`tiny` names the offline
 * tiny model), a model folder or a hub id writes each task's design in this process, with the
 * runtime `baton orchestrate` uses (transformers.js on onnxruntime-node's CPU, constrained
 * decoding). One model is loaded at a time and designs are written one after another (the runtime
 * runs one generation at a time). Models that would need a download (hub presets, hub ids) are
 * reported not run: an evaluation does not fetch hundreds of megabytes; `baton orchestrate --model`
 * writes single designs with them. The model runs locally: it has no price, so its designs cost $0;
 * their tokens (prompt and generated) are the designer's `usage`, counted in each row's tokens and
 * calls as a provider's design calls are.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  isProviderOrchestrator,
  withLocalUsage,
  type OrchestratorDesign,
  type OrchestratorFor,
} from '../eval/index.ts';
import { orchestratorMessages } from '../interop/index.ts';
import {
  chatFormat,
  createOrchestratorRuntime,
  parseManifest,
  type OrchestratorRuntime,
} from '../orchestrator/index.ts';

const MODELS_DIR = fileURLToPath(new URL('../../models/', import.meta.url));

export interface ModelOrchestrators {
  orchestratorFor: OrchestratorFor;
  dispose: () => Promise<void>;
}

/** Loads lazily, on the first design asked for; `tiny` is the manifest's default model. */
export function modelOrchestrators(cwd: string): ModelOrchestrators {
  let runtime: OrchestratorRuntime | null = null;
  let loadedSpec: string | null = null;
  let defaultId = '';
  let queue: Promise<unknown> = Promise.resolve();
  const isFolder = (spec: string): boolean => {
    const path = resolve(cwd, spec);
    return existsSync(path) && statSync(path).isDirectory();
  };
  /** `tiny`, a model this build ships (models/) or a folder: nothing to download. */
  const runsHere = (spec: string): boolean => {
    if (spec === 'tiny' || isFolder(spec)) return true;
    try {
      const m = parseManifest(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8'));
      return m.ok && m.value.models.some((e) => e.id === spec && e.source.kind === 'local');
    } catch {
      return false;
    }
  };
  const open = async (spec: string): Promise<OrchestratorRuntime | string> => {
    if (!runtime) {
      const m = parseManifest(await readFile(join(MODELS_DIR, 'manifest.json'), 'utf8'));
      if (!m.ok) return m.errors[0]?.message ?? 'models/manifest.json is not valid';
      const xdg = process.env['XDG_CACHE_HOME'];
      runtime = createOrchestratorRuntime({
        manifest: m.value,
        resolve: { localRoot: MODELS_DIR, isFolder },
        probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
        cacheDir: join(xdg && xdg !== '' ? xdg : join(homedir(), '.cache'), 'baton', 'models'),
        formats: { chat: chatFormat(orchestratorMessages) },
      });
      defaultId = m.value.default;
    }
    if (spec === 'tiny') spec = defaultId;
    if (loadedSpec !== spec) {
      const model = isFolder(spec) ? resolve(cwd, spec) : spec;
      const l = await runtime.load({ model, device: 'auto', dtype: 'auto' });
      if (!l.ok) return `${l.problem.code}: ${l.problem.message}`;
      loadedSpec = spec;
    }
    return runtime;
  };
  return {
    orchestratorFor: (m) => {
      if (m.kind !== 'orchestrator') return null;
      const name = m.model;
      if (isProviderOrchestrator(m) || !runsHere(name)) return null;
      return (task, seed) => {
        const run = queue.then(async (): Promise<OrchestratorDesign> => {
          // A model that cannot load or write fails its task's row (saying why), not the evaluation.
          const failed = (failure: string): OrchestratorDesign => ({
            design: null,
            designer: { kind: 'orchestrator', model: name, parseErrors: [], valid: false, failure },
            failure,
          });
          const rt = await open(name);
          if (typeof rt === 'string') return failed(rt);
          const g = await rt.generate({
            query: task.query,
            dom: 'auto',
            constrained: true,
            temperature: 0,
            seed,
          });
          if (!g.ok) return failed(`${g.problem.code}: ${g.problem.message}`);
          const { design, designer, problem, generation } = g.result;
          return {
            design,
            designer: withLocalUsage(designer, generation.promptTokens, generation.tokens),
            ...(problem ? { failure: problem.message } : {}),
          };
        });
        queue = run.catch(() => undefined);
        return run;
      };
    },
    dispose: async () => {
      if (runtime) await runtime.dispose();
    },
  };
}
