/**
 * Intermediate-execution benchmark: what the call cache of `createIntermediateExecutor` saves when
 * a construction runs every partial design on a provider. Each construction (the `prior` policy on
 * the default role pool, sampled with a seed, over generated MASBench tasks) runs twice against the
 * local OpenAI-wire server with a fixed latency per request: once with the cache (as
 * `baton construct --execute remote` does) and once without it (`cache: false`). Both must take the
 * same actions and get the same intermediate answers; the bench fails otherwise. Writes
 * bench/results/intermediate.json and the "Intermediate execution (call cache)" section of
 * docs/benchmarks.md (only that section; the rest of the file is kept).
 *
 *   npm run bench:intermediate
 */
import { generateTask, taskOfMasbench, type Axis } from '../src/masbench/index.ts';
import type { Task } from '../src/core/trace.ts';
import { createIntermediateExecutor, type IntermediateUsage } from '../src/executor/intermediate.ts';
import { createLlmClient } from '../src/executor/llm/index.ts';
import { remoteBackend } from '../src/executor/remote.ts';
import { PolicyNetwork } from '../src/policy/network.ts';
import { priorCheckpoint } from '../src/policy/prior.ts';
import { DEFAULT_POOL } from '../src/policy/roles.ts';
import { construct } from '../src/policy/episode.ts';
import { startOpenAIServer, type OpenAIServer } from '../tests/server/openai-server.ts';
import { loadAverage, machine, writeDocSection, writeResults } from './report.ts';

const HEADING = 'Intermediate execution (call cache)';
/** Server latency per request, ms. */
const LATENCY_MS = 40;
/** Measurements per construction and variant; rows report the median. */
const REPEATS = 3;
/** Agents of one partial design running at once (the CLI's default). */
const CONCURRENCY = 4;
/** Task shapes; each is generated with every seed in SEEDS, which also seeds the construction. */
const SPECS: readonly { axis: Axis; value: number }[] = [
  { axis: 'depth', value: 4 },
  { axis: 'depth', value: 6 },
  { axis: 'depth', value: 8 },
  { axis: 'parallel', value: 4 },
  { axis: 'parallel', value: 6 },
];
const SEEDS = [1, 2];

/** One construction's spend with one variant. */
interface Measure {
  /** Chat requests the server received. */
  requests: number;
  /** Calls answered from the cache (0 without it). */
  cached_calls: number;
  /** Server-reported usage as the client recorded it (fresh requests only). */
  prompt_tokens: number;
  completion_tokens: number;
  /** From the first policy step to the last intermediate run's end. */
  wall_ms: number;
}

/** What must be equal between the variants: the actions, the answers, the final design. */
interface Outcome {
  fingerprint: string;
  steps: number;
  agents: number;
  runs: number;
  usage: IntermediateUsage;
  requests: number;
  wallMs: number;
}

interface Row {
  task: string;
  task_id: string;
  seed: number;
  /** Construction steps, EXIT included; each one ran its partial design. */
  steps: number;
  /** Agents in the final design. */
  agents: number;
  cached: Measure;
  uncached: Measure;
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 === 1 ? (s[(n - 1) / 2] as number) : ((s[n / 2 - 1] as number) + (s[n / 2] as number)) / 2;
};
const round1 = (x: number): number => Math.round(x * 10) / 10;
const ratio = (a: number, b: number): string => (b === 0 ? '–' : (a / b).toFixed(3));

function taskOf(axis: Axis, value: number, seed: number): { task: Task; id: string } {
  const t = generateTask({ axis, value, seed });
  return { id: t.id, task: taskOfMasbench(t) };
}

const chatRequests = (server: OpenAIServer): number =>
  server.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions').length;

async function main(): Promise<void> {
  const server = await startOpenAIServer({ faults: { latencyMs: LATENCY_MS } });
  const client = createLlmClient({ baseUrl: server.baseUrl });
  const backend = remoteBackend(client, 'bench-model', {}, { provider: 'local', baseUrl: server.baseUrl });
  const pool = DEFAULT_POOL;
  const net = await PolicyNetwork.cpu(priorCheckpoint(pool));

  /** One construction with every partial design executed on the server, with or without the cache. */
  const build = async (task: Task, seed: number, cache: boolean): Promise<Outcome> => {
    const executor = createIntermediateExecutor({ backend, cache, concurrency: CONCURRENCY });
    const problems: string[] = [];
    const before = chatRequests(server);
    const t0 = performance.now();
    const c = await construct({
      policy: net,
      pool,
      task,
      seed,
      createdAt: new Date(0).toISOString(),
      runner: async (design, t) => {
        const r = await executor.run(design, t);
        if (r.status !== 'completed') problems.push(`${r.status}: ${r.problem ?? ''}`);
        return { answer: r.answer, correct: r.correct };
      },
    });
    const wallMs = performance.now() - t0;
    if (problems.length > 0) throw new Error(`an intermediate run did not complete: ${problems[0]}`);
    const usage = executor.usage();
    const requests = chatRequests(server) - before;
    if (requests !== usage.calls)
      throw new Error(`the server received ${requests} chat requests, the executor counted ${usage.calls}`);
    return {
      fingerprint: JSON.stringify({
        steps: c.steps.map((s) => [s.action, s.intermediateAnswer, s.intermediateCorrect]),
        design: c.design,
      }),
      steps: c.steps.length,
      agents: c.design.agents.length,
      runs: usage.runs,
      usage,
      requests,
      wallMs,
    };
  };

  const cases = SPECS.flatMap((s) => SEEDS.map((seed) => ({ ...s, seed, ...taskOf(s.axis, s.value, seed) })));
  const rows: Row[] = [];
  /** Wall time of all constructions together, per repeat and variant. */
  const totalWall = { cached: [] as number[], uncached: [] as number[] };
  const t0 = performance.now();
  try {
    // Warm-up: the first requests of a process load the HTTP stack, which is not the cache's doing.
    const first = cases[0];
    if (first) await build(first.task, first.seed, false);
    const walls = cases.map(() => ({ cached: [] as number[], uncached: [] as number[] }));
    const outcomes: { cached: Outcome | null; uncached: Outcome | null }[] = cases.map(() => ({
      cached: null,
      uncached: null,
    }));
    for (let rep = 0; rep < REPEATS; rep++) {
      const sum = { cached: 0, uncached: 0 };
      for (const [i, k] of cases.entries()) {
        // Alternate which variant goes first so drifting load falls on both alike.
        const order = (rep + i) % 2 === 0 ? ([true, false] as const) : ([false, true] as const);
        for (const cache of order) {
          const variant = cache ? 'cached' : 'uncached';
          const o = await build(k.task, k.seed, cache);
          const seen = outcomes[i]?.[variant];
          // Request and token counts are deterministic: a repeat that differs is a bug, not noise.
          if (seen && (seen.fingerprint !== o.fingerprint || seen.requests !== o.requests))
            throw new Error(`${k.axis} ${k.value} seed ${k.seed} (${variant}): repeat ${rep} differs`);
          (outcomes[i] as { cached: Outcome | null; uncached: Outcome | null })[variant] = o;
          walls[i]?.[variant].push(o.wallMs);
          sum[variant] += o.wallMs;
        }
      }
      totalWall.cached.push(sum.cached);
      totalWall.uncached.push(sum.uncached);
    }
    for (const [i, k] of cases.entries()) {
      const { cached, uncached } = outcomes[i] as { cached: Outcome; uncached: Outcome };
      const label = `${k.axis} ${k.value} · seed ${k.seed}`;
      if (cached.fingerprint !== uncached.fingerprint)
        throw new Error(
          `${label}: the construction with the cache differs from the one without it (actions, answers or design)`,
        );
      const w = walls[i] as { cached: number[]; uncached: number[] };
      const measure = (o: Outcome, wall: number[]): Measure => ({
        requests: o.requests,
        cached_calls: o.usage.cachedCalls,
        prompt_tokens: o.usage.promptTokens,
        completion_tokens: o.usage.completionTokens,
        wall_ms: round1(median(wall)),
      });
      rows.push({
        task: label,
        task_id: k.id,
        seed: k.seed,
        steps: cached.steps,
        agents: cached.agents,
        cached: measure(cached, w.cached),
        uncached: measure(uncached, w.uncached),
      });
    }
  } finally {
    net.dispose();
    await server.close();
  }
  const elapsedS = (performance.now() - t0) / 1000;

  const sum = (f: (r: Row) => number): number => rows.reduce((a, r) => a + f(r), 0);
  const tokens = (m: Measure): number => m.prompt_tokens + m.completion_tokens;
  const total = {
    steps: sum((r) => r.steps),
    requests: { cached: sum((r) => r.cached.requests), uncached: sum((r) => r.uncached.requests) },
    tokens: { cached: sum((r) => tokens(r.cached)), uncached: sum((r) => tokens(r.uncached)) },
    wall_ms: { cached: round1(median(totalWall.cached)), uncached: round1(median(totalWall.uncached)) },
  };
  const load = loadAverage();
  const date = new Date().toISOString().slice(0, 10);
  const { node, cpu, cores } = machine();
  const summary = {
    date,
    node,
    cpu,
    cores,
    load_average: { '1min': load[0], '5min': load[1], '15min': load[2] },
    latency_ms: LATENCY_MS,
    repeats: REPEATS,
    concurrency: CONCURRENCY,
    policy: 'prior',
    elapsed_s: round1(elapsedS),
    total,
    rows,
  };
  writeResults('intermediate', summary);

  const line = (
    name: string,
    steps: number,
    req: [number, number],
    tok: [number, number],
    wall: [number, number],
  ): string =>
    `| ${name} | ${steps} | ${req[0]} | ${req[1]} | ${ratio(req[0], req[1])} | ${tok[0]} | ${tok[1]} | ${ratio(tok[0], tok[1])} | ${wall[0]} | ${wall[1]} | ${ratio(wall[0], wall[1])} |`;
  const table = [
    '| construction | steps | requests with | without | ratio | tokens with | without | ratio | wall ms with | without | ratio |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) =>
      line(
        r.task,
        r.steps,
        [r.cached.requests, r.uncached.requests],
        [tokens(r.cached), tokens(r.uncached)],
        [r.cached.wall_ms, r.uncached.wall_ms],
      ),
    ),
    line(
      '**total**',
      total.steps,
      [total.requests.cached, total.requests.uncached],
      [total.tokens.cached, total.tokens.uncached],
      [total.wall_ms.cached, total.wall_ms.uncached],
    ),
  ].join('\n');
  const reqRatio = total.requests.cached / total.requests.uncached;
  const tokRatio = total.tokens.cached / total.tokens.uncached;
  const wallRatio = total.wall_ms.cached / total.wall_ms.uncached;
  const perStep = (n: number): string => (n / total.steps).toFixed(2);
  const rowRatios = rows.map((r) => r.cached.requests / r.uncached.requests);
  writeDocSection(
    HEADING,
    `Measured ${date} with \`npm run bench:intermediate\` (bench/intermediate.bench.ts, Node ${process.version},
${summary.cores} × ${summary.cpu}; 1-minute load average ${load[0]} at the end of the run, ${round1(elapsedS)} s in all); raw
rows in \`bench/results/intermediate.json\`. Each construction is the \`prior\` policy on the default
role pool, sampled with the row's seed, on a generated MASBench task (same seed), and every step's
partial design runs on the local OpenAI-wire server (tests/server/openai-server.ts, real HTTP,
${LATENCY_MS} ms latency per request, up to ${CONCURRENCY} agents at once) through
\`createIntermediateExecutor\`: "with" keeps its call cache (as \`baton construct --execute remote\`
does), "without" sets \`cache: false\`, the baseline. Both variants took the same actions, got the
same intermediate answers and ended with the same design in every repeat (checked; the bench fails
otherwise). "requests" are the chat requests the server received (equal to the executor's count),
"tokens" are prompt + completion tokens as the server reported them to the client, "wall" is the
whole construction (policy steps and intermediate runs). Request and token counts are the same in
every repeat; wall times are medians of ${REPEATS} runs of each variant, interleaved; "ratio" is with / without.

${table}

Over the ${rows.length} constructions (${total.steps} steps, each running its partial design), the cache sends
**${(reqRatio * 100).toFixed(1)}%** of the requests (${perStep(total.requests.cached)} per step instead of
${perStep(total.requests.uncached)}; per construction ${Math.min(...rowRatios).toFixed(3)}–${Math.max(...rowRatios).toFixed(3)}), spends
**${(tokRatio * 100).toFixed(1)}%** of the tokens and takes **${(wallRatio * 100).toFixed(1)}%** of the wall time
(${total.wall_ms.cached} ms against ${total.wall_ms.uncached} ms). Without the cache every step re-runs
the whole partial design, so requests grow with the square of the number of agents; with it an
ADD pays for the new agent and the summariser, and a DELETE only for the agents that read the
deleted one and the summariser. Tokens fall by a little less than requests, because the calls that
remain are the ones with the longest prompts (the summariser reads every output). Wall time falls
by less again: a step with the cache still waits for one request on each level of the design it
changed (the new agent, then the summariser), ${LATENCY_MS} ms each, plus the policy step and the
local HTTP round trips, so the deeper the design, the larger the saving.
`,
  );
  console.log(table);
  console.log(
    JSON.stringify({ requestRatio: reqRatio, tokenRatio: tokRatio, wallRatio, elapsed_s: round1(elapsedS) }),
  );
}

await main();
