/**
 * `baton orchestrate`: an orchestrator language model writes the MAS design for a task, headless —
 * the same runtime the Orchestrate page runs in its worker (src/orchestrator `createOrchestratorRuntime`:
 * manifest, transformers.js on onnxruntime-node's CPU, constrained decoding, the design record).
 * The trace's `design` is the parsed design and its designer holds the raw output; the design then
 * runs on the simulated sub-agents (MASBench tasks) or an OpenAI-compatible provider, as
 * `baton construct` runs its designs.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import { TraceSchema, type Trace } from '../../core/trace.ts';
import { backendFromSpec } from '../../executor/backend-spec.ts';
import { runDesign } from '../../executor/run.ts';
import { orchestratorMessages } from '../../interop/index.ts';
import {
  chatFormat,
  createOrchestratorRuntime,
  parseManifest,
  type DevicePreference,
  type DomChoice,
  type Dtype,
  type Manifest,
} from '../../orchestrator/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { loadTask } from '../construct-inputs.ts';
import {
  DESIGN_OUTPUT_USAGE,
  DESIGN_OUTPUTS,
  repairTurnsFlag,
  REPAIR_TURNS_USAGE,
} from '../provider-orchestrator.ts';
import { orchestrateWithProvider } from './orchestrate-provider.ts';
import { plural, shortAnswer, usd } from '../construct-report.ts';
import type { DesignOutputChoice } from '../../executor/provider-design-read.ts';
import { choiceFlag, isUsageError, positiveIntFlag, readFlags, seedFlag } from '../flags.ts';
import {
  PROVIDER_OPTIONS,
  openProvider,
  parseProviderArgs,
  providerFlagsIn,
  providerUsage,
  redactedJson,
  redactingIO,
  type ProviderArgs,
} from '../provider-args.ts';

/** The repository's models/ folder: the manifest and the project's own model folders. */
const MODELS_DIR = fileURLToPath(new URL('../../../models/', import.meta.url));

const usage = `Usage: baton orchestrate --task <text|task.json> --out <trace.json>
                         [--dom low|high|auto] [--model <manifest id|folder|URL|owner/name>]
                         [--device auto|cpu|wasm|webgpu] [--dtype auto|fp32|q8|q4|...] [--unconstrained]
                         [--temperature T] [--seed S] [--max-new-tokens N] [--cache-dir DIR]
                         [--execute simulated|remote|none]
                         [--orchestrator model|provider [--repair-turns N] [--design-output xml|json-schema|auto]]
                         [--base-url <url> --agent-model <name> [--api-key-env VAR] [--concurrency N]
                          [--budget-tokens N] [--budget-usd X]]      (with --execute remote)

An orchestrator language model writes the multi-agent system (MAS) for the task — the same model
runtime as the Orchestrate page, run by transformers.js on the CPU — and the trace (baton.trace/1)
records the parsed design, the model's raw output, its timings and constrained decoding's counts.
The design then runs on the simulator or a provider.

Options:
  --task        the question as text, or a JSON file: a MASBench task (baton.masbench/1, as written
                by "baton bench generate") or a task object {"query", "groundTruth"}
  --out         where to write the trace (.json)
  --dom         Degree of MAS: low (one agent or none, no edges), high (a DAG), auto (the model
                chooses; default)
  --model       a model of models/manifest.json (default: its default, the offline tiny model), a
                model folder, a hub id (owner/name; downloaded from huggingface.co) or a URL of a
                model folder (the hub layout .../owner/name/resolve/main/ or any folder)
  --device      auto (default) or cpu: in Node the model runs on onnxruntime's CPU provider
                (wasm and webgpu are the browser's devices)
  --dtype       the weights to load (default: the first the model offers)
  --unconstrained  decode without the design grammar (for comparison); the output may not parse
  --temperature 0 = greedy (default), up to 2
  --seed        sampling seed, and the simulator's (default 0)
  --max-new-tokens  tokens the design may take (default: the model's, from the manifest)
  --cache-dir   where downloaded model files are kept (default ~/.cache/baton/models)
  --execute     simulated: the design runs on the simulated sub-agents (MASBench task files only;
                the default for them); remote: on an OpenAI-compatible provider; none: not run
                (the default for other tasks)

  --orchestrator  model (default): the model above writes the design in this process; provider:
                the OpenAI-compatible endpoint's --model writes it (--base-url, --api-key-env; the
                agents then run on --agent-model, default the same), in MAS-Orchestra XML, an
                invalid design sent back with its problems; --budget-tokens/--budget-usd hold the
                design's calls and the run's together
${REPAIR_TURNS_USAGE}
${DESIGN_OUTPUT_USAGE}

With --execute remote:
${providerUsage('--execute remote').replace('--model  ', '--agent-model')}

Exit code 0 when the design is valid and the trace is written (with --execute remote: and the run
completed), 1 when the model cannot load, writes no valid design (the trace is still written, with
the raw output and what is wrong) or the run fails, 2 on a usage error.`;

interface Options {
  task: string;
  out: string;
  dom: DomChoice;
  model: string | undefined;
  device: DevicePreference;
  dtype: Dtype | 'auto';
  constrained: boolean;
  temperature: number;
  seed: number;
  maxNewTokens: number | undefined;
  cacheDir: string;
  execute: 'simulated' | 'remote' | 'none' | undefined;
  provider: ProviderArgs;
  /** Who writes the design: the model in this process, or the provider's model. */
  orchestrator: 'model' | 'provider';
  repairTurns: number;
  designOutput: DesignOutputChoice;
}

const DTYPES = ['auto', 'fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16', 'bnb4'] as const;

function parse(args: string[]): { ok: true; o: Options } | { ok: false; message: string } {
  const { model: _providerModel, ...providerOptions } = PROVIDER_OPTIONS;
  const f = readFlags(args, {
    task: { type: 'string' },
    out: { type: 'string' },
    dom: { type: 'string' },
    model: { type: 'string' },
    device: { type: 'string' },
    dtype: { type: 'string' },
    unconstrained: { type: 'boolean' },
    temperature: { type: 'string' },
    seed: { type: 'string' },
    'max-new-tokens': { type: 'string' },
    'cache-dir': { type: 'string' },
    execute: { type: 'string' },
    'agent-model': { type: 'string' },
    orchestrator: { type: 'string' },
    'repair-turns': { type: 'string' },
    'design-output': { type: 'string' },
    ...providerOptions,
  });
  if (!f.ok) return f;
  const { values, str } = f;
  const task = str('task');
  if (!task || task.trim() === '') return { ok: false, message: '--task is required' };
  const out = str('out');
  if (!out || out.trim() === '') return { ok: false, message: '--out is required' };
  const dom = choiceFlag('dom', str('dom'), ['low', 'high', 'auto'] as const, 'auto');
  if (isUsageError(dom)) return dom;
  const device = choiceFlag('device', str('device'), ['auto', 'cpu', 'wasm', 'webgpu'] as const, 'auto');
  if (isUsageError(device)) return device;
  const dtype = choiceFlag('dtype', str('dtype'), DTYPES, 'auto');
  if (isUsageError(dtype)) return dtype;
  const seed = seedFlag(str('seed'));
  if (isUsageError(seed)) return seed;
  const t = str('temperature') ?? '0';
  const temperature = Number(t);
  if (t.trim() === '' || !Number.isFinite(temperature) || temperature < 0 || temperature > 2)
    return { ok: false, message: `--temperature must be a number from 0 to 2, got "${t}"` };
  const mnt = str('max-new-tokens');
  const maxNewTokens = mnt === undefined ? undefined : positiveIntFlag('max-new-tokens', mnt, '1');
  if (isUsageError(maxNewTokens)) return maxNewTokens;
  const execute = str('execute');
  if (execute !== undefined && execute !== 'simulated' && execute !== 'remote' && execute !== 'none')
    return { ok: false, message: `--execute must be simulated, remote or none, got "${execute}"` };
  const orchestrator = choiceFlag(
    'orchestrator',
    str('orchestrator'),
    ['model', 'provider'] as const,
    'model',
  );
  if (isUsageError(orchestrator)) return orchestrator;
  const repairTurns = repairTurnsFlag(values['repair-turns']);
  if (typeof repairTurns === 'string') return { ok: false, message: repairTurns };
  const viaProvider = orchestrator === 'provider';
  if (!viaProvider && values['repair-turns'] !== undefined)
    return { ok: false, message: '--repair-turns only applies with --orchestrator provider' };
  const designOutput = choiceFlag('design-output', str('design-output'), DESIGN_OUTPUTS, 'xml');
  if (isUsageError(designOutput)) return designOutput;
  if (!viaProvider && values['design-output'] !== undefined)
    return { ok: false, message: '--design-output only applies with --orchestrator provider' };
  const { 'agent-model': agentModel, ...rest } = values;
  // With --orchestrator provider, --model is the endpoint's model that writes the design; the
  // agents run on --agent-model (default: the same model).
  const providerValues = { ...rest, model: viaProvider ? (agentModel ?? str('model')) : agentModel };
  const stray = execute === 'remote' || viaProvider ? [] : providerFlagsIn(providerValues);
  if (stray.length > 0)
    return {
      ok: false,
      message: `${stray.map((s) => (s === '--model' ? '--agent-model' : s)).join(', ')} only apply with --execute remote`,
    };
  const provider = parseProviderArgs(
    providerValues,
    execute === 'remote' ? '--execute remote' : viaProvider ? '--orchestrator provider' : null,
  );
  if (!provider.ok)
    return {
      ok: false,
      message: viaProvider ? provider.message : provider.message.replace('--model', '--agent-model'),
    };
  const xdg = process.env['XDG_CACHE_HOME'];
  return {
    ok: true,
    o: {
      task,
      out,
      dom,
      model: str('model'),
      device,
      dtype,
      constrained: values.unconstrained !== true,
      temperature,
      seed,
      maxNewTokens,
      cacheDir:
        str('cache-dir') ?? join(xdg && xdg !== '' ? xdg : join(homedir(), '.cache'), 'baton', 'models'),
      execute: execute as Options['execute'],
      provider: provider.value,
      orchestrator,
      repairTurns,
      designOutput,
    },
  };
}

async function readManifest(): Promise<Manifest | string> {
  let text: string;
  try {
    text = await readFile(join(MODELS_DIR, 'manifest.json'), 'utf8');
  } catch (e) {
    return `cannot read models/manifest.json: ${e instanceof Error ? e.message : String(e)}`;
  }
  const m = parseManifest(text);
  return m.ok ? m.value : (m.errors[0]?.message ?? 'models/manifest.json is not valid');
}

const kb = (bytes: number): string =>
  bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${Math.ceil(bytes / 1e3)} kB`;
const ms = (x: number): string => `${Math.round(x)} ms`;

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('orchestrate', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const manifest = await readManifest();
  if (typeof manifest === 'string') {
    io.err(`baton orchestrate: ${manifest}`);
    return 1;
  }
  const loaded = await loadTask(o.task, io.cwd);
  if (typeof loaded === 'string') {
    io.err(`baton orchestrate: ${loaded}`);
    return 2;
  }
  const { task, masbench: mb } = loaded;
  const execute = o.execute ?? (mb ? 'simulated' : 'none');
  if (execute === 'simulated' && !mb) {
    io.err(
      'baton orchestrate: --execute simulated needs a MASBench task file (baton bench generate writes them)',
    );
    return 2;
  }
  if (o.orchestrator === 'provider' && o.provider.endpoint)
    return orchestrateWithProvider({
      task,
      masbench: mb,
      execute,
      dom: o.dom,
      model: o.model ?? o.provider.endpoint.model,
      provider: o.provider,
      repairTurns: o.repairTurns,
      designOutput: o.designOutput,
      temperature: o.temperature,
      seed: o.seed,
      now: io.now ?? (() => new Date()),
      write: (trace, secrets, cli) => write(trace, o, secrets, cli),
      redacting: (secrets) => redactingIO(io, secrets),
    });
  const endpoint = execute === 'remote' ? o.provider.endpoint : null;
  const provider = endpoint ? openProvider(endpoint) : null;
  const secrets = provider?.secrets ?? [];
  const cli = redactingIO(io, secrets);
  if (provider?.note) cli.out(provider.note);
  const now = io.now ?? (() => new Date());

  const isFolder = (spec: string): boolean => {
    const path = resolve(io.cwd, spec);
    return existsSync(path) && statSync(path).isDirectory();
  };
  const runtime = createOrchestratorRuntime({
    manifest,
    resolve: { localRoot: MODELS_DIR, isFolder },
    probe: () => Promise.resolve({ runtime: 'node', webgpu: null }),
    cacheDir: o.cacheDir,
    formats: { chat: chatFormat(orchestratorMessages) },
  });
  const modelSpec = o.model ?? manifest.default;
  const model =
    isFolder(modelSpec) && !manifest.models.some((m) => m.id === modelSpec)
      ? resolve(io.cwd, modelSpec)
      : modelSpec;
  // Files are listed once (a model typed in may be read again for another dtype).
  const shownFiles = new Set<string>();
  try {
    const l = await runtime.load({
      model,
      device: o.device,
      dtype: o.dtype,
      onEvent: (e) => {
        if (e.kind === 'file' && e.status === 'done' && !shownFiles.has(e.file) && shownFiles.add(e.file))
          cli.out(`  ${e.file}${e.total > 0 ? ` (${kb(e.total)})` : ''}`);
      },
    });
    if (!l.ok) {
      cli.err(
        `baton orchestrate: ${l.problem.code}: ${l.problem.message}${l.problem.path ? ` [${l.problem.path}]` : ''}`,
      );
      return 1;
    }
    const m = l.model;
    cli.out(
      `model: ${m.label} · ${m.dtype} on ${m.device} (${m.deviceReason}) · loaded in ${ms(m.loadMs)}, warm-up ${ms(m.warmupMs)}`,
    );
    const g = await runtime.generate({
      query: task.query,
      dom: o.dom,
      constrained: o.constrained,
      temperature: o.temperature,
      seed: o.seed,
      ...(o.maxNewTokens !== undefined ? { maxNewTokens: o.maxNewTokens } : {}),
    });
    if (!g.ok) {
      cli.err(`baton orchestrate: ${g.problem.code}: ${g.problem.message}`);
      return 1;
    }
    const { design, designer, problem, generation: gen } = g.result;
    cli.out(
      `wrote ${plural(gen.tokens, 'token')} (${gen.stopReason}) · first token ${ms(gen.firstTokenMs)} · ${gen.tokensPerSecond.toFixed(1)} tok/s · ${o.constrained ? 'constrained' : 'unconstrained'}`,
    );
    if (designer.constraint)
      cli.out(
        `constraint: ${designer.constraint['maskedSteps'] ?? 0} masked steps, ${designer.constraint['forcedTokens'] ?? 0} forced tokens of ${designer.constraint['steps'] ?? 0}`,
      );
    const createdAt = now().toISOString();
    const base = minimalTrace({
      query: task.query,
      groundTruth: task.groundTruth,
      createdAt,
      id: traceIdFrom(task.query, gen.rawOutput, createdAt),
      source: task.source,
      designer,
    });
    let trace: Trace = {
      ...base,
      task,
      design: design ?? { dom: o.dom === 'low' ? 'low' : 'high', agents: [], edges: [] },
      tags: design ? [] : ['invalid-design'],
    };
    if (!design) {
      cli.err(`baton orchestrate: ${problem?.message ?? 'no valid design'}`);
      for (const line of designer.parseErrors.slice(0, 10)) cli.err(`  ${line}`);
      cli.err(
        `  raw output: ${JSON.stringify(gen.rawOutput.slice(0, 300))}${gen.rawOutput.length > 300 ? '…' : ''}`,
      );
      await write(trace, o, secrets, cli);
      return 1;
    }
    if (design.agents.length === 0 && design.directAnswer !== undefined)
      cli.out(
        `design: answered directly, no sub-agent (valid, dom ${design.dom}, branch direct): ${shortAnswer(design.directAnswer)}`,
      );
    else
      cli.out(
        `design: ${plural(design.agents.length, 'agent')}, ${plural(design.edges.length, 'edge')} (valid, dom ${design.dom}${designer.branch ? `, branch ${designer.branch}` : ''})`,
      );
    if (execute === 'simulated' && mb) {
      trace = await runDesign({
        trace,
        backend: backendFromSpec({ kind: 'simulated', task: mb, seed: o.seed }),
        startedAt: now().toISOString(),
      });
    } else if (execute === 'remote' && provider) {
      const controller = new AbortController();
      const onSigint = (): void => controller.abort();
      process.once('SIGINT', onSigint);
      try {
        trace = await runDesign({
          trace,
          backend: provider.backend,
          concurrency: o.provider.concurrency,
          budget: o.provider.budget,
          signal: controller.signal,
          startedAt: now().toISOString(),
          secrets,
        });
      } finally {
        process.removeListener('SIGINT', onSigint);
      }
    }
    if (execute === 'none') {
      // The trace says the design was not run, so its empty final answer is not read as a wrong one.
      trace = { ...trace, tags: [...trace.tags, notRunTag(mb !== null)] };
      cli.err(`baton orchestrate: ${notRunMessage(mb !== null, o.execute === 'none')}`);
    } else {
      const verdict = trace.result.correct === null ? 'ungraded' : trace.result.correct ? 'correct' : 'wrong';
      const status = trace.execution.status === 'completed' ? verdict : trace.execution.status;
      cli.out(`final answer: ${shortAnswer(trace.result.finalAnswer)} (${status}; ${execute})`);
      const t = trace.totals;
      cli.out(
        `run: ${plural(t.llmCalls, 'call')}, ${t.promptTokens + t.completionTokens} tokens, ${usd(t.costUsd)}${execute === 'simulated' ? ' (simulated)' : ''}`,
      );
    }
    if (!(await write(trace, o, secrets, cli))) return 1;
    return execute !== 'none' && trace.execution.status !== 'completed' ? 1 : 0;
  } finally {
    await runtime.dispose();
  }
}

/** The tag a trace gets when its design was written but not run. */
export const NOT_RUN_TAG = 'design not run';

function notRunTag(masbench: boolean): string {
  return masbench
    ? `${NOT_RUN_TAG} (--execute none)`
    : `${NOT_RUN_TAG}: a free-text question has no simulator answer`;
}

function notRunMessage(masbench: boolean, asked: boolean): string {
  if (masbench || asked) return 'the design was not run (--execute none), so the trace has no final answer.';
  return (
    'the design was not run, so the trace has no final answer: the simulator answers only MASBench ' +
    'tasks (a task file from "baton bench generate"), and a free-text question has no simulator ' +
    'answer. Run it on a model with --execute remote --base-url <url> --agent-model <name> ' +
    '(an OpenAI-compatible endpoint, such as a local Ollama server).'
  );
}

/** Checks the trace against the schema and writes it; false (with the problem said) when it cannot. */
async function write(trace: Trace, o: Options, secrets: readonly string[], cli: CliIO): Promise<boolean> {
  const schema = TraceSchema.safeParse(trace);
  if (!schema.success) {
    for (const i of schema.error.issues.slice(0, 5))
      cli.err(`baton orchestrate: ${i.path.join('.')}: ${i.message}`);
    return false;
  }
  const path = resolve(cli.cwd, o.out);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${redactedJson(schema.data, secrets)}\n`, 'utf8');
  } catch (e) {
    cli.err(`baton orchestrate: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return false;
  }
  cli.out(`wrote ${path}`);
  return true;
}

export const orchestrateCommand: Command = {
  name: 'orchestrate',
  summary: 'an orchestrator language model writes the MAS design for a task; run it and write the trace',
  usage,
  run,
};
