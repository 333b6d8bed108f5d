/**
 * `baton construct`: builds a MAS for one task with a construction policy (MasHost JPSS), prints
 * every step's top role probabilities and edge probabilities, and writes the trace. The policy is
 * `src/policy`; with `--execute simulated` each intermediate MAS is run by the simulated
 * sub-agents of `src/executor/sim` (MASBench task files only), and so is the final design.
 */
import { register } from 'node:module';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { MasBenchTaskSchema, type MasBenchTask } from '../../bench/masbench/index.ts';
import { minimalTrace } from '../../core/trace-builders.ts';
import { TaskSchema, TraceSchema, type ConstructionStep, type Task, type Trace } from '../../core/trace.ts';
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
import { DEFAULT_POOL } from '../../policy/roles.ts';
import { construct, type IntermediateRunner } from '../../policy/sample.ts';
import { type CliIO, type Command, parseCommandArgs } from '../command.ts';

const usage = `Usage: baton construct --policy <checkpoint.json|random[:SEED]|prior> --task <text|task.json>
                       --seed <S> --out <trace.json> [--execute simulated] [--backend auto|cpu|webgpu]
                       [--greedy] [--temperature T] [--max-steps N] [--save-policy <file.json>]

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
                final design
  --backend     auto (default; WebGPU only on a hardware adapter), cpu or webgpu
  --greedy      take the most probable action and every link with p >= 0.5
  --temperature sampling temperature > 0 (default 1)
  --max-steps   step budget N (default: the checkpoint's, 16 for the built-ins)
  --save-policy also write the checkpoint used (baton.policy/1 JSON), e.g. to start from the prior`;

interface Options {
  policy: string;
  task: string;
  seed: number;
  out: string;
  execute: boolean;
  backend: BackendPreference;
  greedy: boolean;
  temperature: number;
  maxSteps: number | undefined;
  savePolicy: string | undefined;
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
  if (execute !== undefined && execute !== 'simulated') {
    return { ok: false, message: `--execute supports only "simulated", got "${execute}"` };
  }
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
      execute: execute === 'simulated',
      backend,
      greedy: values.greedy === true,
      temperature,
      maxSteps: ms === undefined ? undefined : Number(ms),
      savePolicy: str('save-policy'),
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

async function loadPolicy(spec: string, cwd: string): Promise<PolicyCheckpoint | string> {
  if (spec === 'prior') return priorCheckpoint(DEFAULT_POOL);
  const random = /^random(?::(\d+))?$/.exec(spec);
  if (random) return randomCheckpoint(DEFAULT_POOL, Number(random[1] ?? '0'));
  const path = resolve(cwd, spec);
  if (!(await isFile(path))) return `--policy "${spec}" is not prior, random[:SEED] or a checkpoint file`;
  if ((await stat(path)).size > MAX_FILE_BYTES) return `${path} is larger than 64 MB`;
  const r = parseCheckpoint(await readFile(path, 'utf8'));
  if (!r.ok)
    return `${path} is not a valid policy checkpoint: ${r.errors.map((e) => `${e.path ? `${e.path}: ` : ''}${e.message}`).join('; ')}`;
  const why = incompatibility(
    r.value,
    DEFAULT_POOL.roles.map((x) => x.name),
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
    const t = mb.data;
    return {
      task: {
        query: t.question,
        groundTruth: t.answers.join(', '),
        ...(t.answers.length > 1 ? { groundTruths: t.answers.map(String) } : {}),
        source: { kind: 'masbench', axis: t.axis, value: t.value, taskId: t.id },
        seed: t.seed,
      },
      masbench: t,
    };
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
    const verdict =
      step.intermediateCorrect === null ? 'ungraded' : step.intermediateCorrect ? 'correct' : 'wrong';
    const r = step.actionReward;
    lines.push(
      `         answer: ${ans} (${verdict})` +
        (r === null || r === undefined ? '' : `, reward ${r >= 0 ? '+' : ''}${r.toFixed(3)}`),
    );
  }
  return lines;
}

async function run(args: string[], io: CliIO): Promise<number> {
  const p = parseCommandArgs('construct', args, usage, parse, io);
  if (typeof p === 'number') return p;
  const o = p.o;
  const cp = await loadPolicy(o.policy, io.cwd);
  if (typeof cp === 'string') {
    io.err(`baton construct: ${cp}`);
    return 2;
  }
  const loaded = await loadTask(o.task, io.cwd);
  if (typeof loaded === 'string') {
    io.err(`baton construct: ${loaded}`);
    return 2;
  }
  if (o.execute && !loaded.masbench) {
    io.err(
      'baton construct: --execute simulated needs a MASBench task file (baton bench generate writes them)',
    );
    return 2;
  }
  const choice =
    o.backend === 'cpu'
      ? await chooseBackend('cpu')
      : await chooseBackend(o.backend, { gpu: await nodeGpu() });
  if (choice.backend === 'webgpu') allowWgslImports();
  io.out(`backend: ${choice.backend} (${choice.reason})`);
  const net = await PolicyNetwork.create(cp, choice);
  const mb = loaded.masbench;
  const startedAt = new Date(0).toISOString();
  const runner: IntermediateRunner | undefined = mb
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
    : undefined;
  io.out(
    `policy: ${cp.name} · task: ${
      loaded.task.query
        .split('\n')
        .find((l) => l.trim() !== '')
        ?.slice(0, 80) ?? ''
    }…`,
  );
  let trace: Trace;
  try {
    const c = await construct({
      policy: net,
      pool: DEFAULT_POOL,
      task: loaded.task,
      seed: o.seed,
      greedy: o.greedy,
      temperature: o.temperature,
      ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
      ...(o.execute && runner ? { runner } : {}),
      createdAt: new Date().toISOString(),
      onStep: (s) => {
        for (const line of describeStep(s.step)) io.out(line);
      },
    });
    trace = c.trace;
    if (o.execute && mb) {
      trace = await runDesign({
        trace,
        backend: simulatedBackend(mb, o.seed),
        startedAt: new Date().toISOString(),
      });
    }
  } finally {
    net.dispose();
    choice.ctx?.dispose();
    if (o.backend !== 'cpu') releaseNodeGpu();
  }
  const problems = [...checkConstruction(trace)];
  const schema = TraceSchema.safeParse(trace);
  if (!schema.success)
    problems.push(...schema.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`));
  if (problems.length > 0) {
    for (const pr of problems) io.err(`baton construct: ${pr}`);
    return 1;
  }
  const d = trace.design;
  io.out(`design: ${d.agents.length} agents, ${d.edges.length} edges (valid)`);
  if (o.execute)
    io.out(
      `final answer: ${shortAnswer(trace.result.finalAnswer)} (${trace.result.correct === null ? 'ungraded' : trace.result.correct ? 'correct' : 'wrong'}; simulated)`,
    );
  const path = resolve(io.cwd, o.out);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, `${JSON.stringify(trace, null, 2)}\n`, 'utf8');
  } catch (e) {
    io.err(`baton construct: cannot write ${path}: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
  io.out(`wrote ${path}`);
  if (o.savePolicy !== undefined) {
    const cpPath = resolve(io.cwd, o.savePolicy);
    try {
      await mkdir(dirname(cpPath), { recursive: true });
      await writeFile(cpPath, serializeCheckpoint(cp), 'utf8');
    } catch (e) {
      io.err(`baton construct: cannot write ${cpPath}: ${e instanceof Error ? e.message : String(e)}`);
      return 1;
    }
    io.out(`wrote checkpoint ${cp.name} to ${cpPath}`);
  }
  return 0;
}

export const constructCommand: Command = {
  name: 'construct',
  summary: 'build a MAS for a task with a construction policy (MasHost JPSS) and write the trace',
  usage,
  run,
};
