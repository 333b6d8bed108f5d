/**
 * `baton construct`: builds a MAS for one task with a construction policy (MasHost JPSS), prints
 * every step's top role probabilities and edge probabilities, and writes the trace. The episode is
 * `src/policy/episode.ts` (`construct`), the one the Build page steps, so the same task, policy,
 * seed and choices (`--choices`) give the same construction. With `--execute simulated` each
 * intermediate MAS is run by the simulated sub-agents of `src/executor/sim` (MASBench task files
 * only), and so is the final design. With `--execute remote` they run on an OpenAI-compatible
 * provider through the intermediate executor (`src/executor/intermediate.ts`: a call cache and one
 * budget for the whole construction), and the final design runs there with what the construction
 * left of the budget. Inputs are read by `construct-inputs.ts`, lines printed by
 * `construct-report.ts`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { TraceSchema, type Trace } from '../../core/trace.ts';
import {
  backendFromSpec,
  intermediateExecutorFromSpec,
  stepResultOf,
  type IntermediateSpec,
} from '../../executor/backend-spec.ts';
import { publicBaseUrl } from '../../executor/remote.ts';
import { runDesign } from '../../executor/run.ts';
import { releaseNodeGpu } from '../../gpu/node-gpu.ts';
import type { BackendPreference } from '../../gpu/index.ts';
import { checkConstruction, serializeCheckpoint, construct, PolicyNetwork } from '../../policy/index.ts';
import type { IntermediateRunner, StepChoice } from '../../policy/index.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import { computeBackend } from '../compute.ts';
import { backendFlag, isUsageError, readFlags, seedFlag } from '../flags.ts';
import { loadCheckpoint, loadChoices, loadRoles, loadTask } from '../construct-inputs.ts';
import { describeRun, describeStep, describeUsage, plural, shortAnswer, usd } from '../construct-report.ts';
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

const usage = `Usage: baton construct --policy <checkpoint.json|random[:SEED]|prior[@T]> --task <text|task.json>
                       --seed <S> --out <trace.json> [--execute simulated|remote] [--backend auto|wasm|cpu|webgpu]
                       [--greedy] [--temperature T] [--max-steps N] [--roles <pool.json>]
                       [--choices <choices.json>] [--save-policy <file.json>]
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
  --backend     auto (default; WebGPU only on a hardware adapter, else wasm), wasm, cpu or webgpu
  --greedy      take the most probable action and every link with p >= 0.5
  --temperature sampling temperature > 0 (default 1)
  --max-steps   step budget N (default: the checkpoint's, 16 for the built-ins)
  --roles       a role pool file (baton.roles/1, as the Build page's role editor exports it);
                default: the built-in pool. prior and random adapt to any pool; a checkpoint
                file must have been made for the pool's roles (names and order)
  --choices     the user's choices, as the Build page makes them: a JSON list of
                {"step": <index from 0>, "action": "<role>|DELETE|EXIT", "links": ["<agent id>", …]}
                (action, links or both); other steps are the policy's. The same task, policy, seed
                and choices give the same construction as the Build page
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
  choices: string | undefined;
}

type Parsed = { ok: true; o: Options } | { ok: false; message: string };

function parse(args: string[]): Parsed {
  const f = readFlags(args, {
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
    choices: { type: 'string' },
    ...PROVIDER_OPTIONS,
  });
  if (!f.ok) return f;
  const { values, str } = f;
  const policy = str('policy');
  if (!policy) return { ok: false, message: '--policy is required' };
  const task = str('task');
  if (!task || task.trim() === '') return { ok: false, message: '--task is required' };
  const out = str('out');
  if (!out || out.trim() === '') return { ok: false, message: '--out is required' };
  const seed = seedFlag(str('seed'));
  if (isUsageError(seed)) return seed;
  const execute = str('execute');
  if (execute !== undefined && execute !== 'simulated' && execute !== 'remote') {
    return { ok: false, message: `--execute must be "simulated" or "remote", got "${execute}"` };
  }
  const stray = execute === 'remote' ? [] : providerFlagsIn(values);
  if (stray.length > 0) return { ok: false, message: `${stray.join(', ')} only apply with --execute remote` };
  const provider = parseProviderArgs(values, execute === 'remote' ? '--execute remote' : null);
  if (!provider.ok) return provider;
  const backend = backendFlag(str('backend'), 'auto');
  if (isUsageError(backend)) return backend;
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
      seed,
      out,
      execute: execute ?? null,
      provider: provider.value,
      backend,
      greedy: values.greedy === true,
      temperature,
      maxSteps: ms === undefined ? undefined : Number(ms),
      savePolicy: str('save-policy'),
      roles: str('roles'),
      choices: str('choices'),
    },
  };
}

/** Everything `run` loads before the construction starts, or the usage error. */
async function loadInputs(o: Options, cwd: string) {
  const pool = await loadRoles(o.roles, cwd);
  if (typeof pool === 'string') return pool;
  const cp = await loadCheckpoint(o.policy, cwd, pool);
  if (typeof cp === 'string') return cp;
  const loaded = await loadTask(o.task, cwd);
  if (typeof loaded === 'string') return loaded;
  if (o.execute === 'simulated' && !loaded.masbench)
    return '--execute simulated needs a MASBench task file (baton bench generate writes them)';
  const choices =
    o.choices === undefined ? new Map<number, StepChoice>() : await loadChoices(o.choices, cwd, pool);
  if (typeof choices === 'string') return choices;
  return { pool, cp, ...loaded, choices };
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('construct', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const inputs = await loadInputs(o, io.cwd);
  if (typeof inputs === 'string') {
    io.err(`baton construct: ${inputs}`);
    return 2;
  }
  const { pool, cp, task, masbench: mb, choices } = inputs;
  const now = io.now ?? (() => new Date());
  const endpoint = o.execute === 'remote' ? o.provider.endpoint : null;
  const provider = endpoint ? openProvider(endpoint) : null;
  const secrets = provider?.secrets ?? [];
  // Every line goes through this, so a key echoed anywhere is replaced before it shows.
  const cli = redactingIO(io, secrets);
  if (provider?.note) cli.out(provider.note);
  const choice = await computeBackend(o.backend);
  cli.out(`backend: ${choice.backend} (${choice.reason})`);
  const net = await PolicyNetwork.create(cp, choice);
  const controller = new AbortController();
  // The partial designs run on the same executor as the Build page's, so the steps record the same.
  const spec: IntermediateSpec | null =
    o.execute === 'simulated' && mb
      ? { kind: 'simulated', task: mb, seed: o.seed }
      : provider
        ? {
            kind: 'remote',
            backend: provider.spec,
            budget: o.provider.budget,
            concurrency: o.provider.concurrency,
          }
        : null;
  const intermediate = spec ? intermediateExecutorFromSpec(spec, controller.signal) : null;
  const runner: IntermediateRunner | undefined =
    spec && intermediate
      ? async (design, t) => stepResultOf(await intermediate.run(design, t), spec.kind)
      : undefined;
  cli.out(
    `policy: ${cp.name} · task: ${
      task.query
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
      `remote: ${endpoint.model} at ${publicBaseUrl(endpoint.baseUrl)} · budget for the whole construction: ${limits.length > 0 ? limits.join(', ') : 'none'}${task.groundTruth === null ? ' · no ground truth: answers are recorded ungraded' : ''}`,
    );
  }
  const onSigint = (): void => controller.abort();
  if (provider) process.once('SIGINT', onSigint);
  let trace: Trace;
  try {
    const c = await construct({
      policy: net,
      pool,
      task,
      seed: o.seed,
      greedy: o.greedy,
      temperature: o.temperature,
      ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
      ...(runner ? { runner } : {}),
      choose: (i) => choices.get(i),
      createdAt: now().toISOString(),
      onStep: ({ step }) => {
        for (const line of describeStep(step)) cli.out(line);
        if (step.intermediateRun?.backend === 'remote') cli.out(describeRun(step.intermediateRun));
      },
    });
    trace = c.trace;
    if (o.execute === 'simulated' && mb) {
      trace = await runDesign({
        trace,
        backend: backendFromSpec({ kind: 'simulated', task: mb, seed: o.seed }),
        startedAt: now().toISOString(),
      });
    }
    if (provider && intermediate) {
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
        startedAt: now().toISOString(),
        secrets,
      });
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
    net.dispose();
    choice.ctx?.dispose();
    if (o.backend !== 'cpu') releaseNodeGpu();
  }
  return finish(trace, o, cp, secrets, cli);
}

/** Checks the trace, prints the summary, writes the trace (and the checkpoint); the exit code. */
async function finish(
  trace: Trace,
  o: Options,
  cp: Parameters<typeof serializeCheckpoint>[0],
  secrets: readonly string[],
  cli: CliIO,
): Promise<number> {
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
  const path = resolve(cli.cwd, o.out);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${redactedJson(trace, secrets)}\n`, 'utf8');
  } catch (e) {
    cli.err(`baton construct: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  cli.out(`wrote ${path}`);
  if (o.savePolicy !== undefined) {
    const cpPath = resolve(cli.cwd, o.savePolicy);
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
