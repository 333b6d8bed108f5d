/**
 * `baton construct`: builds a MAS for one task with a construction policy (MasHost JPSS), prints
 * every step's top role probabilities and edge probabilities, and writes the trace. The policy is
 * `src/policy`; with `--execute simulated` each intermediate MAS is run by the simulated
 * sub-agents of `src/executor/sim` (MASBench task files only), and so is the final design. With
 * `--execute remote` they run on an OpenAI-compatible provider through the intermediate executor
 * (`src/executor/intermediate.ts`: a call cache and one budget for the whole construction), and the
 * final design runs there with what the construction left of the budget.
 */
import { register } from 'node:module';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MasBenchTaskSchema, taskOfMasbench, type MasBenchTask } from '../../masbench/index.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TaskSchema, TraceSchema, type ConstructionStep, type Task, type Trace } from '../../core/trace.ts';
import {
  createIntermediateExecutor,
  type IntermediateResult,
  type IntermediateUsage,
} from '../../executor/intermediate.ts';
import { publicBaseUrl } from '../../executor/remote.ts';
import { runDesign } from '../../executor/run.ts';
import { simulatedBackend } from '../../executor/sim/index.ts';
import { nodeGpu, releaseNodeGpu } from '../../gpu/node-gpu.ts';
import { chooseBackend, type BackendPreference } from '../../gpu/select.ts';
import { checkConstruction } from '../../policy/check.ts';
import {
  incompatibility,
  parseCheckpoint,
  serializeCheckpoint,
  type PolicyCheckpoint,
} from '../../policy/checkpoint.ts';
import { PolicyNetwork, randomCheckpoint } from '../../policy/network.ts';
import { priorCheckpoint } from '../../policy/prior.ts';
import { DEFAULT_POOL, MAX_ROLE_POOL_CHARS, parseRolePool, type RolePool } from '../../policy/roles.ts';
import { construct, type IntermediateRunner } from '../../policy/sample.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
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

const usage = `Usage: baton construct --policy <checkpoint.json|random[:SEED]|prior> --task <text|task.json>
                       --seed <S> --out <trace.json> [--execute simulated|remote] [--backend auto|cpu|webgpu]
                       [--greedy] [--temperature T] [--max-steps N] [--roles <pool.json>]
                       [--save-policy <file.json>]
                       [--base-url <url> --model <name> [--api-key-env VAR] [--concurrency N]
                        [--budget-tokens N] [--budget-usd X]]      (with --execute remote)

Builds a multi-agent system for the task one MasHost action at a time (ADD a role with links to
existing agents, DELETE, EXIT), prints each step's top role probabilities and edge probabilities,
and writes the construction trace (baton.trace/1).

Options:
  --policy      a checkpoint file (baton.policy/1), "random" / "random:SEED" (seeded untrained
                network) or "prior" (hand-set weights: decomposition for deep tasks, parallel
                branches for parallel ones)
  --task        the question as text, or a JSON file: a MASBench task (baton.masbench/1, as
                written by "baton bench generate") or a task object {"query", "groundTruth"}
  --seed        sampling seed, an integer 0..4294967295 (default 0)
  --out         where to write the trace (.json)
  --execute     "simulated": run every intermediate MAS with simulated sub-agents (MASBench task
                files only), record answers, correctness and action-wise rewards, then run the
                final design.
                "remote": the same on an OpenAI-compatible provider. Calls are cached, so a step
                pays only for the agents it changed and the summariser; the budget is for the
                whole construction (steps are skipped once it is spent) and the final run gets
                what is left. Correctness and rewards need a ground truth (a task JSON or a
                MASBench file); for a text task the answers are recorded ungraded
  --backend     auto (default; WebGPU only on a hardware adapter), cpu or webgpu
  --greedy      take the most probable action and every link with p >= 0.5
  --temperature sampling temperature > 0 (default 1)
  --max-steps   step budget N (default: the checkpoint's, 16 for the built-ins)
  --roles       a role pool file (baton.roles/1, as the Build page's role editor exports it);
                default: the built-in pool. prior and random adapt to any pool; a checkpoint
                file must have been made for the pool's roles (names and order)
  --save-policy also write the checkpoint used (baton.policy/1 JSON), e.g. to start from the prior

With --execute remote:
${providerUsage('--execute remote')}

Exit code 0 when the trace is written (with --execute remote: and the final run completed), 1 when
the construction or the final run fails, 2 on a usage error.`;

interface Options {
  policy: string;
  task: string;
  seed: number;
  out: string;
  /** Where intermediate MASs and the final design run; null: nowhere. */
  execute: 'simulated' | 'remote' | null;
  provider: ProviderArgs;
  backend: BackendPreference;
  greedy: boolean;
  temperature: number;
  maxSteps: number | undefined;
  savePolicy: string | undefined;
  roles: string | undefined;
}

type Parsed = { ok: true; o: Options } | { ok: false; message: string };

function parse(args: string[]): Parsed {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        policy: { type: 'string' },
        task: { type: 'string' },
        seed: { type: 'string' },
        out: { type: 'string' },
        execute: { type: 'string' },
        backend: { type: 'string' },
        greedy: { type: 'boolean' },
        temperature: { type: 'string' },
        'max-steps': { type: 'string' },
        'save-policy': { type: 'string' },
        roles: { type: 'string' },
        ...PROVIDER_OPTIONS,
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  const str = (k: string): string | undefined =>
    typeof values[k] === 'string' ? (values[k] as string) : undefined;
  const policy = str('policy');
  if (!policy) return { ok: false, message: '--policy is required' };
  const task = str('task');
  if (!task || task.trim() === '') return { ok: false, message: '--task is required' };
  const out = str('out');
  if (!out || out.trim() === '') return { ok: false, message: '--out is required' };
  const seedRaw = str('seed') ?? '0';
  if (!/^\d+$/.test(seedRaw) || Number(seedRaw) > 0xffffffff) {
    return { ok: false, message: `--seed must be an integer from 0 to 4294967295, got "${seedRaw}"` };
  }
  const execute = str('execute');
  if (execute !== undefined && execute !== 'simulated' && execute !== 'remote') {
    return { ok: false, message: `--execute must be "simulated" or "remote", got "${execute}"` };
  }
  const stray = execute === 'remote' ? [] : providerFlagsIn(values);
  if (stray.length > 0) return { ok: false, message: `${stray.join(', ')} only apply with --execute remote` };
  const provider = parseProviderArgs(values, execute === 'remote' ? '--execute remote' : null);
  if (!provider.ok) return provider;
  const backend = str('backend') ?? 'auto';
  if (backend !== 'auto' && backend !== 'cpu' && backend !== 'webgpu') {
    return { ok: false, message: `--backend must be auto, cpu or webgpu, got "${backend}"` };
  }
  const temperature = Number(str('temperature') ?? '1');
  if (!(temperature > 0) || !Number.isFinite(temperature)) {
    return { ok: false, message: `--temperature must be a number > 0, got "${str('temperature')}"` };
  }
  const ms = str('max-steps');
  if (ms !== undefined && (!/^\d+$/.test(ms) || Number(ms) < 2 || Number(ms) > 256)) {
    return { ok: false, message: `--max-steps must be an integer from 2 to 256, got "${ms}"` };
  }
  return {
    ok: true,
    o: {
      policy,
      task,
      seed: Number(seedRaw),
      out,
      execute: execute ?? null,
      provider: provider.value,
      backend,
      greedy: values.greedy === true,
      temperature,
      maxSteps: ms === undefined ? undefined : Number(ms),
      savePolicy: str('save-policy'),
      roles: str('roles'),
    },
  };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

const MAX_FILE_BYTES = 64_000_000;

async function loadRoles(spec: string | undefined, cwd: string): Promise<RolePool | string> {
  if (spec === undefined) return DEFAULT_POOL;
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--roles "${spec}" is not a file`;
  if ((await stat(path)).size > MAX_ROLE_POOL_CHARS * 4) return `${path} is too large for a role pool`;
  const r = parseRolePool(await readFile(path, 'utf8'));
  if (!r.ok)
    return `${path} is not a valid role pool: ${r.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`;
  return r.value;
}

async function loadPolicy(spec: string, cwd: string, pool: RolePool): Promise<PolicyCheckpoint | string> {
  if (spec === 'prior') return priorCheckpoint(pool);
  const random = /^random(?::(\d+))?$/.exec(spec);
  if (random) return randomCheckpoint(pool, Number(random[1] ?? '0'));
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--policy "${spec}" is not prior, random[:SEED] or a checkpoint file`;
  if ((await stat(path)).size > MAX_FILE_BYTES) return `${path} is larger than 64 MB`;
  const r = parseCheckpoint(await readFile(path, 'utf8'));
  if (!r.ok)
    return `${path} is not a valid policy checkpoint: ${r.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`;
  const why = incompatibility(
    r.value,
    pool.roles.map((x) => x.name),
  );
  return why ?? r.value;
}

interface LoadedTask {
  task: Task;
  masbench: MasBenchTask | null;
}

async function loadTask(spec: string, cwd: string): Promise<LoadedTask | string> {
  const path = resolve(cwd, spec);
  if (!/\.json$/i.test(spec) || !(await isFile(path))) {
    return { task: { query: spec, groundTruth: null, source: { kind: 'custom' } }, masbench: null };
  }
  if ((await stat(path)).size > MAX_FILE_BYTES) return `${path} is larger than 64 MB`;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    return `${path} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`;
  }
  const mb = MasBenchTaskSchema.safeParse(raw);
  if (mb.success) {
    return { task: taskOfMasbench(mb.data), masbench: mb.data };
  }
  const plain = TaskSchema.safeParse({ groundTruth: null, source: { kind: 'custom' }, ...(raw as object) });
  if (plain.success) return { task: plain.data, masbench: null };
  return `${path} is neither a MASBench task nor a task object with a "query": ${mb.error.issues[0]?.message ?? ''}`;
}

/**
 * Lets Node import the compute core's `*.wgsl?raw` kernel sources (Vite does this in the app and in
 * vitest), so `--backend webgpu` works from the command line.
 */
function allowWgslImports(): void {
  const hooks = `
import { readFile } from 'node:fs/promises';
export async function load(url, context, next) {
  if (url.startsWith('file:') && /\\.wgsl(\\?raw)?$/.test(url)) {
    const file = new URL(url);
    file.search = '';
    return { format: 'module', source: 'export default ' + JSON.stringify(await readFile(file, 'utf8')) + ';', shortCircuit: true };
  }
  return next(url, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}

const pct = (p: number): string =>
  p >= 0.995 ? p.toFixed(2) : p < 0.005 && p > 0 ? p.toExponential(0) : p.toFixed(2);

/** The boxed answer, else the last 60 characters on one line. */
function shortAnswer(text: string | null): string {
  if (text === null || text.trim() === '') return '—';
  const boxed = /\\boxed\{([^{}]*)\}(?![\s\S]*\\boxed)/.exec(text);
  if (boxed) return `\\boxed{${boxed[1]}}`;
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `…${flat.slice(-59)}` : flat;
}

function describeStep(step: ConstructionStep, top = 3): string[] {
  const a = step.action;
  const what =
    a.kind === 'add'
      ? `ADD ${a.role} → ${a.agentId}${a.links.length > 0 ? ` ← ${a.links.join(', ')}` : ' (reads the question)'}`
      : a.kind === 'delete'
        ? `DELETE ${a.agentId}`
        : `EXIT → ${a.summarizerId ?? 'summariser'}`;
  const lines = [
    `step ${String(step.index).padStart(2)}  ${what}   log p = ${step.logProb === null ? 'n/a' : step.logProb.toFixed(3)}${step.chooser === 'user' ? ' (user)' : ''}`,
  ];
  const best = [...step.roleDistribution].sort((x, y) => y.p - x.p).slice(0, top);
  lines.push(`         roles: ${best.map((d) => `${d.action} ${pct(d.p)}`).join(' · ')}`);
  if (step.edgeProbabilities.length > 0) {
    const links = new Set(a.kind === 'add' ? a.links : []);
    lines.push(
      `         edges: ${step.edgeProbabilities.map((e) => `${e.from} ${pct(e.p)}${links.has(e.from) ? ' ✓' : ''}`).join(' · ')}`,
    );
  }
  if (step.intermediateCorrect !== undefined) {
    const ans = shortAnswer(step.intermediateAnswer ?? null);
    const status = step.intermediateRun?.status ?? 'completed';
    const verdict =
      status !== 'completed'
        ? status
        : step.intermediateCorrect === null
          ? 'ungraded'
          : step.intermediateCorrect
            ? 'correct'
            : 'wrong';
    const r = step.actionReward;
    lines.push(
      `         answer: ${ans} (${verdict})` +
        (r === null || r === undefined ? '' : `, reward ${r >= 0 ? '+' : ''}${r.toFixed(3)}`),
    );
  }
  return lines;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const usd = (x: number): string => `$${x.toFixed(4)}`;

/** Fresh spend and cache hits: "2 calls, 310 tokens, $0.0001 · 3 cached". */
function describeUsage(u: IntermediateUsage): string {
  return `${plural(u.calls, 'call')}, ${u.promptTokens + u.completionTokens} tokens, ${usd(u.costUsd)} · ${u.cachedCalls} cached`;
}

/** The line under a step executed on a provider: what it cost, or why it did not run. */
function describeRun(r: IntermediateResult): string {
  const why = r.problem === undefined ? '' : ` — ${r.problem.replace(/\s+/g, ' ').slice(0, 200)}`;
  return r.status === 'skipped'
    ? `         remote: skipped${why}`
    : `         remote: ${r.status} · ${describeUsage(r.usage)}${r.status === 'completed' ? '' : why}`;
}

/** The step record of an intermediate run (cached calls are free, so usage is fresh spend). */
function runRecord(r: IntermediateResult): NonNullable<ConstructionStep['intermediateRun']> {
  const { runs: _runs, ...usage } = r.usage;
  return {
    backend: 'remote',
    status: r.status,
    ...usage,
    ...(r.problem !== undefined ? { problem: r.problem } : {}),
  };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('construct', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const pool = await loadRoles(o.roles, io.cwd);
  if (typeof pool === 'string') {
    io.err(`baton construct: ${pool}`);
    return 2;
  }
  const cp = await loadPolicy(o.policy, io.cwd, pool);
  if (typeof cp === 'string') {
    io.err(`baton construct: ${cp}`);
    return 2;
  }
  const loaded = await loadTask(o.task, io.cwd);
  if (typeof loaded === 'string') {
    io.err(`baton construct: ${loaded}`);
    return 2;
  }
  if (o.execute === 'simulated' && !loaded.masbench) {
    io.err(
      'baton construct: --execute simulated needs a MASBench task file (baton bench generate writes them)',
    );
    return 2;
  }
  const endpoint = o.execute === 'remote' ? o.provider.endpoint : null;
  const provider = endpoint ? openProvider(endpoint) : null;
  const secrets = provider?.secrets ?? [];
  // Every line goes through this, so a key echoed anywhere is replaced before it shows.
  const cli = redactingIO(io, secrets);
  if (provider?.note) cli.out(provider.note);
  const choice =
    o.backend === 'cpu'
      ? await chooseBackend('cpu')
      : await chooseBackend(o.backend, { gpu: await nodeGpu() });
  if (choice.backend === 'webgpu') allowWgslImports();
  cli.out(`backend: ${choice.backend} (${choice.reason})`);
  const net = await PolicyNetwork.create(cp, choice);
  const mb = loaded.masbench;
  const startedAt = new Date(0).toISOString();
  const controller = new AbortController();
  const intermediate = provider
    ? createIntermediateExecutor({
        backend: provider.backend,
        budget: o.provider.budget,
        concurrency: o.provider.concurrency,
        cache: true,
        signal: controller.signal,
        secrets,
      })
    : null;
  /** The latest intermediate run, until its step is printed; every step's run, by step index. */
  let latest: IntermediateResult | null = null;
  const runs = new Map<number, IntermediateResult>();
  const runner: IntermediateRunner | undefined =
    o.execute === 'simulated' && mb
      ? async (design, task) => {
          const t = await runDesign({
            trace: minimalTrace({ query: task.query }),
            design,
            task,
            backend: simulatedBackend(mb, o.seed),
            startedAt,
          });
          return { answer: t.result.finalAnswer, correct: t.result.correct };
        }
      : intermediate
        ? async (design, task) => {
            latest = await intermediate.run(design, task);
            return { answer: latest.answer, correct: latest.correct };
          }
        : undefined;
  cli.out(
    `policy: ${cp.name} · task: ${
      loaded.task.query
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.slice(0, 80) ?? ''
    }…`,
  );
  if (provider && endpoint) {
    const b = o.provider.budget;
    const limits = [
      b.totalTokens !== undefined ? `${b.totalTokens} tokens` : null,
      b.totalUsd !== undefined ? usd(b.totalUsd) : null,
    ].filter((x) => x !== null);
    cli.out(
      `remote: ${endpoint.model} at ${publicBaseUrl(endpoint.baseUrl)} · budget for the whole construction: ${limits.length > 0 ? limits.join(', ') : 'none'}${loaded.task.groundTruth === null ? ' · no ground truth: answers are recorded ungraded' : ''}`,
    );
  }
  const onSigint = (): void => controller.abort();
  if (provider) process.once('SIGINT', onSigint);
  let trace: Trace;
  try {
    const c = await construct({
      policy: net,
      pool,
      task: loaded.task,
      seed: o.seed,
      greedy: o.greedy,
      temperature: o.temperature,
      ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
      ...(runner ? { runner } : {}),
      createdAt: new Date().toISOString(),
      onStep: (s) => {
        const r = latest;
        latest = null;
        if (r) runs.set(s.step.index, r);
        const step = r ? { ...s.step, intermediateRun: runRecord(r) } : s.step;
        for (const line of describeStep(step)) cli.out(line);
        if (r) cli.out(describeRun(r));
      },
    });
    trace = c.trace;
    if (o.execute === 'simulated' && mb) {
      trace = await runDesign({
        trace,
        backend: simulatedBackend(mb, o.seed),
        startedAt: new Date().toISOString(),
      });
    }
    if (provider && intermediate) {
      trace = {
        ...trace,
        construction: trace.construction.map((step) => {
          const r = runs.get(step.index);
          return r ? { ...step, intermediateRun: runRecord(r) } : step;
        }),
      };
      const spent = intermediate.usage();
      cli.out(
        `intermediate spend: ${plural(spent.runs, 'run')}, ${describeUsage(spent)} (${spent.promptTokens} prompt + ${spent.completionTokens} completion tokens)`,
      );
      // The final run is a run of its own, not served from the cache, so the trace records the
      // real calls; it may spend what the construction left.
      const left = intermediate.remaining();
      const budget = {
        ...(left.tokens !== undefined ? { totalTokens: left.tokens } : {}),
        ...(left.usd !== undefined ? { totalUsd: left.usd } : {}),
      };
      const room = [
        left.tokens !== undefined ? `${left.tokens} tokens` : null,
        left.usd !== undefined ? usd(left.usd) : null,
      ].filter((x) => x !== null);
      cli.out(`final run with the remaining budget: ${room.length > 0 ? room.join(', ') : 'no limit'}`);
      trace = await runDesign({
        trace,
        backend: provider.backend,
        concurrency: o.provider.concurrency,
        budget,
        signal: controller.signal,
        startedAt: new Date().toISOString(),
        secrets,
      });
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    net.dispose();
    choice.ctx?.dispose();
    if (o.backend !== 'cpu') releaseNodeGpu();
  }
  const problems = [...checkConstruction(trace)];
  const schema = TraceSchema.safeParse(trace);
  if (!schema.success)
    problems.push(...schema.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`));
  if (problems.length > 0) {
    for (const pr of problems) cli.err(`baton construct: ${pr}`);
    return 1;
  }
  const d = trace.design;
  cli.out(`design: ${d.agents.length} agents, ${d.edges.length} edges (valid)`);
  if (o.execute) {
    const verdict = trace.result.correct === null ? 'ungraded' : trace.result.correct ? 'correct' : 'wrong';
    // A remote run can fail (budget, provider); then its status says more than "ungraded".
    const what =
      o.execute === 'remote' && trace.execution.status !== 'completed' ? trace.execution.status : verdict;
    cli.out(`final answer: ${shortAnswer(trace.result.finalAnswer)} (${what}; ${o.execute})`);
  }
  if (o.execute === 'remote') {
    const t = trace.totals;
    cli.out(
      `final run: ${plural(t.llmCalls, 'call')}, ${t.promptTokens + t.completionTokens} tokens, ${usd(t.costUsd)}`,
    );
    const refused = trace.execution.events.find((e) => e.type === 'agent.note' && e.kind === 'budget');
    if (refused?.type === 'agent.note') cli.out(`final run: ${refused.text}`);
  }
  const path = resolve(io.cwd, o.out);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${redactedJson(trace, secrets)}\n`, 'utf8');
  } catch (e) {
    cli.err(`baton construct: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  cli.out(`wrote ${path}`);
  if (o.savePolicy !== undefined) {
    const cpPath = resolve(io.cwd, o.savePolicy);
    try {
      await mkdir(dirname(cpPath), { recursive: true });
      await writeFile(cpPath, serializeCheckpoint(cp), 'utf8');
    } catch (e) {
      cli.err(`baton construct: cannot write ${cpPath}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    cli.out(`wrote checkpoint ${cp.name} to ${cpPath}`);
  }
  return o.execute === 'remote' && trace.execution.status !== 'completed' ? 1 : 0;
}

export const constructCommand: Command = {
  name: 'construct',
  summary: 'build a MAS for a task with a construction policy (MasHost JPSS) and write the trace',
  usage,
  run,
};
