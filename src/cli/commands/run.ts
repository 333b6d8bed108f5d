/**
 * `baton run`: executes a MAS design on one task, with the simulated sub-agents (offline) or an
 * OpenAI-compatible API, prints each agent's progress and a summary, and writes the trace. The
 * API key is read only from an environment variable and is kept out of the output and the trace.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { lastBoxed } from '../../answers/index.ts';
import { MasBenchTaskSchema, fromJsonl, type MasBenchTask } from '../../masbench/index.ts';
import { minimalTrace, traceIdFrom } from '../../core/trace-builders.ts';
import type { Trace, TraceEvent } from '../../core/trace.ts';
import { formatReport, parseDesign } from '../../design/parse.ts';
import { runDesign } from '../../executor/run.ts';
import { simulatedBackend } from '../../executor/sim/index.ts';
import type { ChatBackend } from '../../executor/types.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';
import {
  PROVIDER_OPTIONS,
  intFlag,
  openProvider,
  parseProviderArgs,
  providerUsage,
  redactedJson,
  redactingIO,
  type ProviderArgs,
} from '../provider-args.ts';

const usage = `Usage: baton run --design <d.xml|d.json> --task <text|task.json|tasks.jsonl:N>
                 --backend simulated|openai [--base-url <url>] [--model <name>]
                 [--api-key-env VAR] [--concurrency N] [--seed S] --out <trace.json>

Runs a MAS design on one task and writes the trace (baton.trace/1).

Options:
  --design       the design, MAS-Orchestra XML or Baton JSON
  --task         the question as text; a .json file (a MASBench task, or {"query", "groundTruth"});
                 or tasks.jsonl:N, the task on line N (from 1) of a MASBench JSONL file
  --backend      simulated: programmatic sub-agents for MASBench tasks (offline, no key);
                 openai: an OpenAI-compatible chat-completions API
${providerUsage('--backend openai')}
  --seed         simulator seed (default 0)
  --sim-time-scale  real time each simulated call takes, as a multiple of its modelled latency
                 (default 0: instant; 1: about as slow as a remote model)
  --out          where to write the trace JSON

Exit code 0 when the run completes, 1 when it fails or cannot start, 2 on a usage error.`;

/** Inputs larger than this are refused before reading, bytes. */
const MAX_INPUT_BYTES = 64 * 1024 * 1024;

interface Args {
  design: string;
  task: string;
  backend: 'simulated' | 'openai';
  provider: ProviderArgs;
  seed: number;
  simTimeScale: number;
  out: string;
}

function parse(args: string[]): { ok: true; value: Args } | { ok: false; message: string } {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        design: { type: 'string' },
        task: { type: 'string' },
        backend: { type: 'string' },
        seed: { type: 'string' },
        'sim-time-scale': { type: 'string' },
        out: { type: 'string' },
        ...PROVIDER_OPTIONS,
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  for (const name of ['design', 'task', 'backend', 'out'] as const) {
    if (!values[name]) return { ok: false, message: `--${name} is required` };
  }
  const backend = values.backend;
  if (backend !== 'simulated' && backend !== 'openai')
    return { ok: false, message: `--backend must be "simulated" or "openai", got "${backend}"` };
  const provider = parseProviderArgs(values, backend === 'openai' ? '--backend openai' : null);
  if (!provider.ok) return provider;
  const seed = intFlag(values.seed, 'seed', 0, 0xffffffff, 0);
  if (typeof seed === 'string') return { ok: false, message: seed };
  const scaleRaw = values['sim-time-scale'];
  const simTimeScale = scaleRaw === undefined ? 0 : Number(scaleRaw);
  if (!(Number.isFinite(simTimeScale) && simTimeScale >= 0 && simTimeScale <= 100))
    return { ok: false, message: `--sim-time-scale must be a number from 0 to 100, got "${scaleRaw}"` };
  return {
    ok: true,
    value: {
      design: values.design as string,
      task: values.task as string,
      backend,
      provider: provider.value,
      seed,
      simTimeScale,
      out: values.out as string,
    },
  };
}

async function readText(path: string): Promise<string> {
  const info = await stat(path);
  if (!info.isFile()) throw new Error('not a file');
  if (info.size > MAX_INPUT_BYTES) throw new Error(`${info.size} bytes; the limit is ${MAX_INPUT_BYTES}`);
  return readFile(path, 'utf8');
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

interface LoadedTask {
  query: string;
  groundTruth: string | null;
  masbench: MasBenchTask | null;
}

/** The task from text, a JSON file or a JSONL line; throws with a message a person understands. */
async function loadTask(spec: string, cwd: string): Promise<LoadedTask> {
  const line = /^(.+\.jsonl):(\d+)$/.exec(spec);
  if (line) {
    const n = Number(line[2]);
    const text = (await readText(resolve(cwd, line[1] as string))).split('\n')[n - 1];
    if (text === undefined || text.trim() === '' || n < 1)
      throw new Error(`${line[1]} has no task on line ${n}`);
    const { tasks, problems } = fromJsonl(text);
    const task = tasks[0];
    if (!task)
      throw new Error(`line ${n} of ${line[1]} is not a valid task: ${problems[0]?.message ?? 'unreadable'}`);
    return { query: task.question, groundTruth: task.answers.join(', '), masbench: task };
  }
  const path = resolve(cwd, spec);
  if (spec.endsWith('.json') && (await exists(path))) {
    let json: unknown;
    try {
      json = JSON.parse(await readText(path));
    } catch (e) {
      throw new Error(`${spec} is not valid JSON (${e instanceof Error ? e.message : String(e)})`, {
        cause: e,
      });
    }
    const mb = MasBenchTaskSchema.safeParse(json);
    if (mb.success)
      return { query: mb.data.question, groundTruth: mb.data.answers.join(', '), masbench: mb.data };
    const plain = json as { query?: unknown; groundTruth?: unknown };
    if (typeof plain === 'object' && plain !== null && typeof plain.query === 'string') {
      const gt = plain.groundTruth;
      return {
        query: plain.query,
        groundTruth: typeof gt === 'string' || typeof gt === 'number' ? String(gt) : null,
        masbench: null,
      };
    }
    throw new Error(`${spec} is neither a MASBench task nor {"query": …}`);
  }
  return { query: spec, groundTruth: null, masbench: null };
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const oneLine = (text: string, max = 100): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
};

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('run', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const a = p.value;
  const provider = a.provider.endpoint ? openProvider(a.provider.endpoint) : null;
  const secrets = provider?.secrets ?? [];
  // Everything printed goes through this, so a key echoed anywhere is replaced before it shows.
  const shown = redactingIO(io, secrets);
  const say = shown.out;
  const complain = shown.err;

  let designText: string;
  try {
    designText = await readText(resolve(io.cwd, a.design));
  } catch (e) {
    complain(`baton run: cannot read ${a.design}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  const report = parseDesign(designText);
  if (!report.design) {
    complain(`baton run: ${a.design} is not a valid design:`);
    for (const line of formatReport(report)) complain(`  ${line}`);
    return 1;
  }
  const design = report.design;

  let task: LoadedTask;
  try {
    task = await loadTask(a.task, io.cwd);
  } catch (e) {
    complain(`baton run: cannot read the task: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }

  // `provider` is set exactly for --backend openai (parse asks for its endpoint).
  let backend: ChatBackend;
  if (provider) {
    if (provider.note) say(provider.note);
    backend = provider.backend;
  } else {
    if (!task.masbench) {
      complain(
        'baton run: --backend simulated needs a generated MASBench task (a task .json or tasks.jsonl:N from `baton bench generate`).',
      );
      return 1;
    }
    backend = simulatedBackend(task.masbench, a.seed, { timeScale: a.simTimeScale });
  }

  const createdAt = new Date().toISOString();
  const mb = task.masbench;
  const base = minimalTrace({
    query: task.query,
    groundTruth: task.groundTruth,
    createdAt,
    id: traceIdFrom(task.query, designText, createdAt),
    source: mb ? { kind: 'masbench', axis: mb.axis, value: mb.value, taskId: mb.id } : { kind: 'custom' },
  });
  const trace: Trace = {
    ...base,
    task: {
      ...base.task,
      ...(mb ? { groundTruths: mb.answers.map(String), seed: mb.seed } : {}),
    },
    design,
  };

  const names = new Map(design.agents.map((ag) => [ag.id, ag.type] as const));
  const onEvent = (e: TraceEvent): void => {
    if (e.type === 'agent.start')
      say(`[${seconds(e.t)}] start ${e.agentId} (${names.get(e.agentId) ?? '?'})`);
    else if (e.type === 'agent.end')
      say(`[${seconds(e.t)}] end   ${e.agentId}: ${oneLine(lastBoxed(e.output) ?? e.output, 80)}`);
    else if (e.type === 'agent.error') say(`[${seconds(e.t)}] error ${e.agentId}: ${oneLine(e.error, 200)}`);
  };

  const controller = new AbortController();
  const onSigint = (): void => controller.abort();
  process.once('SIGINT', onSigint);
  let result: Trace;
  try {
    result = await runDesign({
      trace,
      backend,
      concurrency: a.provider.concurrency,
      budget: a.provider.budget,
      signal: controller.signal,
      startedAt: createdAt,
      secrets,
      onEvent,
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
  }

  const t = result.totals;
  const answer = result.result.finalAnswer;
  say('');
  say(
    `status        ${result.execution.status}${a.backend === 'simulated' ? ' (simulated sub-agents)' : ''}`,
  );
  say(`answer        ${answer === null ? '(none)' : oneLine(lastBoxed(answer) ?? answer, 120)}`);
  say(
    `correct       ${result.result.correct === null ? 'unknown (no ground truth)' : String(result.result.correct)}`,
  );
  say(
    `tokens        ${t.promptTokens + t.completionTokens} (${t.promptTokens} prompt + ${t.completionTokens} completion) in ${t.llmCalls} calls`,
  );
  say(`cost          $${t.costUsd.toFixed(4)}`);
  say(`wall          ${seconds(t.wallMs)}`);
  say(`critical path ${seconds(t.criticalPathMs)}`);

  const out = resolve(io.cwd, a.out);
  try {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, redactedJson(result, secrets), 'utf8');
  } catch (e) {
    complain(`baton run: cannot write ${out}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  say(`trace         ${out}`);
  return result.execution.status === 'completed' ? 0 : 1;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'Run a MAS design on a task (simulated or an OpenAI-compatible API) and write the trace',
  usage,
  run,
};
